"""A Developer Knowledge emulator over one small document whose two sections are two chunks: an
answer about both cites two chunks of one document (answer references carry no chunk id)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grounding_emulator import CorpusStore, EmulatorServer

DATA_STORE = "dk-two-chunks"
PARENT = "documents/docs.example.com/storage/buckets"
CREATE = "New buckets come from the gcloud storage buckets create command, run with a unique name."
REMOVE = (
    "Removing a bucket takes gcloud storage rm with the recursive flag, which also clears every "
    "object inside."
)
DESCRIPTION = "Cloud Storage buckets hold the objects of a project in one region."
BOTH = "How do I create a bucket and how do I remove a bucket with gcloud storage?"
NOTHING = "quantum chromodynamics lattice"
DOCUMENT = {
    "id": "buckets",
    "title": "Buckets",
    "uri": "https://docs.example.com/storage/buckets",
    "mime_type": "text/markdown",
    "description": DESCRIPTION,
    "content": f"# Buckets\n\n## Create\n\n{CREATE}\n\n## Delete\n\n{REMOVE}",
}


@pytest.fixture(scope="session")
def two_chunk_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    """An emulator whose Developer Knowledge corpus is ``DOCUMENT`` (its own server: the
    session emulator serves the built-in corpus there)."""
    path: Path = tmp_path_factory.mktemp("dk") / "buckets.jsonl"
    path.write_text(json.dumps(DOCUMENT) + "\n", encoding="utf-8")
    store = CorpusStore()
    store.ingest(DATA_STORE, path)
    with EmulatorServer(store, developer_knowledge_data_store=DATA_STORE) as server:
        yield server

"""A small corpus for documents-mode content and metadata layouts, served by an emulator of its
own (the session's test corpus has no struct keys that clash with the metadata schema).

Every document matches the query ``QUERY`` ("keeper"):

- ``keeper-manual``: two sections; struct data whose keys clash with ours (``title``,
  ``source``, ``id``, ``struct_data``) next to its own (``category``, ``year``, ``tags``,
  ``nested``).
- ``tokyo-tower``: Japanese and emoji text (ZWJ sequence, flag), struct data with a CJK key.
- ``title-only``: plain text that matches through its title only: extractive segments and
  snippets, but no extractive answer (no sentence holds the query).
- ``no-struct``: no struct data.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from grounding_emulator import CorpusStore, EmulatorServer

CONTENT_DATA_STORE = "content-docs"
PROJECT = "test-project"
QUERY = "keeper"

MANUAL_STRUCT = {
    "title": "Struct title",
    "source": "struct-source",
    "id": "struct-id",
    "struct_data": "a key named like ours",
    "category": "manual",
    "year": 2024,
    "tags": ["lamp", "log"],
    "nested": {"level": 2},
}
TOKYO_STRUCT = {"city": "東京", "icon": "🗼", "名前": "タワー 👩‍🚀"}
TITLE_ONLY_STRUCT = {"shelf": 3}

RECORDS = [
    {
        "id": "keeper-manual",
        "title": "Keeper manual",
        "uri": "https://example.com/manual",
        "mime_type": "text/markdown",
        "content": "# Keeper manual\n\n## Lamp\n\nThe keeper trims the lamp wick at dusk.\n\n"
        "## Log\n\nThe keeper writes the logbook at dawn.",
        "struct_data": MANUAL_STRUCT,
    },
    {
        "id": "tokyo-tower",
        "title": "東京タワー 🗼",
        "uri": "https://example.jp/tower",
        "mime_type": "text/markdown",
        "content": "# 東京タワー 🗼\n\n東京タワーは一九五八年に完成しました。"
        "The keeper 👩‍🚀 waves a flag 🇯🇵 at night.",
        "struct_data": TOKYO_STRUCT,
    },
    {
        "id": "title-only",
        "title": "Keeper notes",
        "uri": "https://example.com/notes",
        "content": "Lamps burn oil every night.",
        "struct_data": TITLE_ONLY_STRUCT,
    },
    {
        "id": "no-struct",
        "title": "Plain page",
        "uri": "https://example.com/plain",
        "content": "A keeper climbs the stairs.",
    },
]


@contextmanager
def content_emulator(folder: Path) -> Iterator[EmulatorServer]:
    """An emulator serving the corpus as ``CONTENT_DATA_STORE`` (its JSONL file in ``folder``)."""
    path = folder / "content-docs.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in RECORDS), encoding="utf-8"
    )
    store = CorpusStore()
    store.ingest(CONTENT_DATA_STORE, path)
    with EmulatorServer(store) as server:
        yield server


def content_server_fixture() -> Any:
    """A module-scoped fixture of the content emulator: ``server = content_server_fixture()``."""

    @pytest.fixture(scope="module")
    def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
        with content_emulator(tmp_path_factory.mktemp("content")) as emulator:
            yield emulator

    return server


def content_retriever(component: Any, server: EmulatorServer, **options: Any) -> Any:
    """A framework's ``DiscoveryEngineRetriever`` (``component``) over the content data store."""
    return component(
        project_id=PROJECT,
        data_store_id=CONTENT_DATA_STORE,
        emulator_host=server.address,
        **options,
    )


# The documents' resource names in project "test-project".
DOCUMENTS = "projects/test-project/locations/global/collections/default_collection/dataStores/"
DOCUMENTS += f"{CONTENT_DATA_STORE}/branches/default_branch/documents"
# The struct keys that reach the top level of each document (the others clash with ours).
FLAT_STRUCT = {
    "keeper-manual": {"category": "manual", "year": 2024, "tags": ["lamp", "log"]}
    | {"nested": {"level": 2}},
    "title-only": TITLE_ONLY_STRUCT,
    "no-struct": {},
    "tokyo-tower": TOKYO_STRUCT,
}
STRUCT = {
    "keeper-manual": MANUAL_STRUCT,
    "title-only": TITLE_ONLY_STRUCT,
    "no-struct": {},
    "tokyo-tower": TOKYO_STRUCT,
}
TITLES = {
    "keeper-manual": ("Keeper manual", "https://example.com/manual"),
    "title-only": ("Keeper notes", "https://example.com/notes"),
    "no-struct": ("Plain page", "https://example.com/plain"),
    "tokyo-tower": ("東京タワー 🗼", "https://example.jp/tower"),
}


def default_metadata(document_id: str, scored: dict[str, Any]) -> dict[str, Any]:
    """Every key of a documents-mode result in the default layout; the scores as searched."""
    title, uri = TITLES[document_id]
    return {
        "source": uri,
        "id": document_id,
        "uri": uri,
        "title": title,
        "chunk_name": f"{DOCUMENTS}/{document_id}",
        "chunk_id": document_id,
        "document_id": document_id,
        "document_name": f"{DOCUMENTS}/{document_id}",
        "mime_type": scored["mime_type"],
        "description": "",
        "data_source": "",
        "update_time": None,
        "relevance_score": None,
        "page_start": None,
        "page_end": None,
        "page_identifier": "",
        "struct_data": STRUCT[document_id],
        "derived_struct_data": scored["derived_struct_data"],
        "rank_signals": scored["rank_signals"],
        "model_scores": scored["model_scores"],
        "previous_chunks": [],
        "next_chunks": [],
        "annotation_contents": [],
        "annotation_metadata": [],
        "data_urls": [],
    }

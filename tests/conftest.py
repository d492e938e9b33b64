"""Shared fixtures: one emulator for the whole session, on the built-in corpus and a test corpus.

The test corpus (``test-docs``, also served as engine ``test-app``):

- 50 paging documents ``page-00`` .. ``page-49``, five sections each, one chunk per section, every
  chunk containing the word "lighthouse": 250 matching chunks. Struct data:
  ``{"lang": "en", "group": "even"|"odd", "rank": i, "tags": ["paging", "t{i % 5}"],
  "meta": {"level": i % 3}}``.
- ``sequence``: six sections ``Step 1`` .. ``Step 6`` (chunks c1..c6), for chunk neighbours.
- non-ASCII documents: Japanese, Chinese, Arabic, emoji (with ZWJ sequences and flags) and
  combining marks, each with ``lang`` in its struct data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from grounding_core import (
    GROUNDING_DATA_STORE,
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
)
from grounding_emulator import CorpusStore, EmulatorServer

# A default data store pasted from `grounding serve` must not change what the tests target.
os.environ.pop(GROUNDING_DATA_STORE, None)

TEST_DATA_STORE = "test-docs"
TEST_ENGINE = "test-app"
PROJECT = "test-project"
PAGING_DOCUMENTS = 50
SECTIONS = 5
PAGING_WORD = "lighthouse"

NON_ASCII_DOCUMENTS = [
    {
        "id": "cjk-ja",
        "title": "東京について",
        "uri": "https://example.jp/tokyo",
        "content": "# 東京\n\n東京都は日本の首都です。人口は約千四百万人です。"
        "東京タワーは一九五八年に完成しました。",
        "struct_data": {"lang": "ja", "script": "cjk"},
    },
    {
        "id": "cjk-zh",
        "title": "北京简介",
        "uri": "https://example.cn/beijing",
        "content": "# 北京\n\n北京是中国的首都。故宫位于北京市中心。",
        "struct_data": {"lang": "zh", "script": "cjk"},
    },
    {
        "id": "arabic",
        "title": "القاهرة",
        "uri": "https://example.eg/cairo",
        "content": "# القاهرة\n\nالقاهرة هي عاصمة مصر. يبلغ عدد سكانها أكثر من عشرين مليون نسمة.",
        "struct_data": {"lang": "ar", "script": "arabic"},
    },
    {
        "id": "emoji",
        "title": "Rockets 🚀",
        "uri": "https://example.com/rockets",
        "content": "# Rockets 🚀\n\nRockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
        "The astronaut crew 👩‍🚀👨‍🚀 trains for years before a flight.",
        "struct_data": {"lang": "en", "script": "emoji"},
    },
    {
        "id": "combining",
        "title": "Cafe\u0301s",
        "uri": "https://example.fr/cafes",
        "content": "# Cafe\u0301s\n\nThe cafe\u0301s of Pa\u0301ris serve "
        "cre\u0300me bru\u0302le\u0301e. Zoe\u0308 orders a croissant every morning.",
        "struct_data": {"lang": "fr", "script": "latin-combining"},
    },
]


def paging_document(number: int) -> dict[str, object]:
    """Paging document ``number``: five one-chunk sections, each with the paging word."""
    sections = []
    for part in range(1, SECTIONS + 1):
        sections.append(
            f"## Part {part}\n\nSection {part} of document {number:02d} talks about the "
            f"{PAGING_WORD} keeper number {number * 10 + part}. It describes the lamp, the "
            f"stairs and the logbook entry {number}-{part} in plain words."
        )
    return {
        "id": f"page-{number:02d}",
        "title": f"Paging document {number:02d}",
        "uri": f"https://example.com/paging/{number:02d}",
        "content": f"# Paging document {number:02d}\n\n" + "\n\n".join(sections),
        "mime_type": "text/markdown",
        "update_time": f"2024-{number % 12 + 1:02d}-15T12:00:00Z",
        "struct_data": {
            "lang": "en",
            "group": "even" if number % 2 == 0 else "odd",
            "rank": number,
            "tags": ["paging", f"t{number % 5}"],
            "meta": {"level": number % 3},
        },
    }


def sequence_document() -> dict[str, object]:
    """Six sections, one chunk each: ``Step 1`` .. ``Step 6``."""
    steps = [
        f"## Step {n}\n\nStep {n} of the sequence: ordinal marker number {n} of six."
        for n in range(1, 7)
    ]
    return {
        "id": "sequence",
        "title": "Sequence",
        "uri": "https://example.com/sequence",
        "content": "\n\n".join(steps),
        "mime_type": "text/markdown",
        "struct_data": {"lang": "en", "group": "sequence"},
    }


def corpus_records() -> list[dict[str, object]]:
    """Every document of the test corpus, as JSONL records."""
    records = [paging_document(n) for n in range(PAGING_DOCUMENTS)]
    records.append(sequence_document())
    records.extend({**d, "mime_type": "text/markdown"} for d in NON_ASCII_DOCUMENTS)
    return records


def write_corpus(path: Path, records: list[dict[str, object]]) -> Path:
    """Write ``records`` as a JSONL file."""
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    return path


@pytest.fixture(scope="session")
def test_corpus_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test corpus as a JSONL file."""
    return write_corpus(tmp_path_factory.mktemp("corpus") / "test-docs.jsonl", corpus_records())


@pytest.fixture(scope="session")
def emulator(test_corpus_path: Path) -> Iterator[EmulatorServer]:
    """The session's emulator: ``python-docs`` (+ ``python-docs-app``) and ``test-docs``
    (+ ``test-app``), in memory, on a free loopback port."""
    store = CorpusStore()
    store.add_builtin()
    store.ingest(TEST_DATA_STORE, test_corpus_path)
    store.add_engine(TEST_ENGINE, TEST_DATA_STORE)
    with EmulatorServer(store) as server:
        yield server


@pytest.fixture(autouse=True)
def _clear_faults(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests that use the emulator leave no injected fault behind."""
    yield
    if "emulator" in request.fixturenames:
        request.getfixturevalue("emulator").faults.clear()


@pytest.fixture(scope="session")
def de_connection(emulator: EmulatorServer) -> Iterator[DiscoveryEngineConnection]:
    """A Discovery Engine connection (sync calls) to the session emulator, in ``PROJECT``."""
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def dk_connection(emulator: EmulatorServer) -> Iterator[DeveloperKnowledgeConnection]:
    """A Developer Knowledge connection (sync calls) to the session emulator."""
    connection = DeveloperKnowledgeConnection(emulator_host=emulator.address)
    yield connection
    connection.close()


@pytest.fixture
async def de_async_connection(emulator: EmulatorServer) -> DiscoveryEngineConnection:
    """A Discovery Engine connection for async tests (its channel is closed afterwards)."""
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    yield connection  # type: ignore[misc]
    await connection.aclose()


@pytest.fixture
async def dk_async_connection(emulator: EmulatorServer) -> DeveloperKnowledgeConnection:
    """A Developer Knowledge connection for async tests."""
    connection = DeveloperKnowledgeConnection(emulator_host=emulator.address)
    yield connection  # type: ignore[misc]
    await connection.aclose()


@pytest.fixture(scope="session")
def test_target() -> DiscoveryEngineTarget:
    """The test data store."""
    return DiscoveryEngineTarget(project=PROJECT, data_store=TEST_DATA_STORE)


@pytest.fixture(scope="session")
def builtin_target() -> DiscoveryEngineTarget:
    """The built-in Python docs data store."""
    return DiscoveryEngineTarget(project=PROJECT, data_store="python-docs")

"""Bad ``document_text`` and ``metadata_layout`` values: each refused when the spec or the
component is built, with an error that names the field and says what to set, in the style of
test_bad_inputs.py's table. Against the session emulator."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic import ValidationError

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import (
    ChunkSearchSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineSearchSummary,
    InputError,
    SourceChunk,
    chunk_metadata,
)
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
DOCS = {"search_mode": "documents"}
CHOICES = (
    "'auto', 'extractive_segments', 'extractive_answers', 'snippets', 'struct_data', 'struct_json'"
)


def _lc(e, **options):
    return lc.DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=e.address, **options
    )


def _li(e, **options):
    return li.DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=e.address, **options
    )


def _search(e, **options):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=e.address)
    return DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", **options)


def _summary(e, **options):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=e.address)
    return DiscoveryEngineSearchSummary(connection, data_store_id="test-docs", **options)


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    (
        "spec: document_text unknown",
        lambda e: ChunkSearchSpec(**DOCS, document_text="segments"),
        InputError,
        [f"document_text must be one of {CHOICES}, got 'segments'"],
    ),
    (
        "spec: document_text None",
        lambda e: ChunkSearchSpec(**DOCS, document_text=None),
        InputError,
        ["document_text must be one of", "got None"],
    ),
    (
        "spec: document_text in chunk mode",
        lambda e: ChunkSearchSpec(document_text="snippets"),
        InputError,
        ["document_text='snippets' needs search_mode='documents'", "leave document_text 'auto'"],
    ),
    (
        "spec: extractive_answers without answers",
        lambda e: ChunkSearchSpec(**DOCS, document_text="extractive_answers"),
        InputError,
        ["max_extractive_answer_count=0 asks for none", "set it to 1..5"],
    ),
    (
        "spec: extractive_segments without segments",
        lambda e: ChunkSearchSpec(**DOCS, document_text="extractive_segments"),
        InputError,
        ["max_extractive_segment_count=0 asks for none", "set it to 1..10"],
    ),
    (
        "spec: snippets with return_snippet=False",
        lambda e: ChunkSearchSpec(**DOCS, document_text="snippets", return_snippet=False),
        InputError,
        ["return_snippet=False asks for none", "leave it None or set it True"],
    ),
    (
        "spec: replace to a choice not asked for",
        lambda e: dataclasses.replace(
            ChunkSearchSpec(**DOCS, max_extractive_answer_count=1),
            max_extractive_answer_count=0,
            document_text="extractive_answers",
        ),
        InputError,
        ["document_text='extractive_answers' needs extractive answers"],
    ),
    (
        "core search: document_text in chunk mode",
        lambda e: _search(e, document_text="struct_data"),
        InputError,
        ["document_text='struct_data' needs search_mode='documents'"],
    ),
    (
        "core search: replace to a bad choice",
        lambda e: _search(e, **DOCS).replace(document_text="answers"),
        InputError,
        ["document_text must be one of", "got 'answers'"],
    ),
    (
        "summary: document_text in chunk mode",
        lambda e: _summary(e, search={"document_text": "snippets"}),
        InputError,
        ["document_text='snippets' needs search_mode='documents'"],
    ),
    (
        "summary: document_text does not apply",
        lambda e: _summary(e, search={**DOCS, "document_text": "snippets"}),
        InputError,
        ["search.document_text='snippets' does not apply to a summary", "leave document_text"],
    ),
    (
        "langchain summary: document_text does not apply",
        lambda e: lc.DiscoveryEngineSummary(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=e.address,
            search=ChunkSearchSpec(**DOCS, document_text="struct_data"),
        ),
        ValidationError,
        ["search.document_text='struct_data' does not apply to a summary"],
    ),
    (
        "llamaindex summary: document_text does not apply",
        lambda e: li.DiscoveryEngineSearchSummaryQueryEngine(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=e.address,
            search={**DOCS, "document_text": "snippets"},
        ),
        InputError,
        ["does not apply to a summary"],
    ),
    (
        "langchain: document_text unknown",
        lambda e: _lc(e, **DOCS, document_text="answers"),
        ValidationError,
        ["document_text", "'auto', 'extractive_segments'"],
    ),
    (
        "langchain: document_text without its content",
        lambda e: _lc(e, **DOCS, document_text="extractive_segments"),
        ValidationError,
        ["max_extractive_segment_count=0 asks for none: set it to 1..10"],
    ),
    (
        "langchain: document_text in chunk mode",
        lambda e: _lc(e, document_text="snippets"),
        ValidationError,
        ["needs search_mode='documents'"],
    ),
    (
        "langchain: metadata_layout unknown",
        lambda e: _lc(e, metadata_layout="flatten"),
        ValidationError,
        ["metadata_layout", "'default' or 'flat'"],
    ),
    (
        "langchain: metadata_layout None",
        lambda e: _lc(e, metadata_layout=None),
        ValidationError,
        ["metadata_layout", "'default' or 'flat'"],
    ),
    (
        "llamaindex: document_text without its content",
        lambda e: _li(e, **DOCS, document_text="extractive_answers"),
        InputError,
        ["max_extractive_answer_count=0 asks for none: set it to 1..5"],
    ),
    (
        "llamaindex: document_text not a string",
        lambda e: _li(e, **DOCS, document_text=5),
        InputError,
        ["document_text must be one of", "got 5"],
    ),
    (
        "llamaindex: metadata_layout unknown",
        lambda e: _li(e, metadata_layout="Flat"),
        InputError,
        ["metadata_layout must be 'default' or 'flat', got 'Flat'"],
    ),
    (
        "llamaindex: metadata_layout a list",
        lambda e: _li(e, metadata_layout=["flat"]),
        InputError,
        ["metadata_layout must be 'default' or 'flat', got ['flat']"],
    ),
    (
        "core: chunk_metadata with an unknown layout",
        lambda e: chunk_metadata(SourceChunk(name="n", content="c"), "nested"),
        InputError,
        ["metadata_layout must be 'default' or 'flat', got 'nested'"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=20)
test_bad_input_gets_a_clear_error = clear_error_test(CASES)

INPUT_ERRORS = [case for case in CASES if case[2] is InputError]


@pytest.mark.parametrize(
    ("name", "call"), [c[:2] for c in INPUT_ERRORS], ids=[c[0] for c in INPUT_ERRORS]
)
def test_every_input_error_names_its_field(emulator, name, call):
    with pytest.raises(InputError) as info:
        call(emulator)
    assert info.value.field in ("document_text", "metadata_layout", "search.document_text")

"""Bad inputs of the core's public API that used to crash untyped (issue #16, points 6 and 7):
lone surrogates, odd metadata, non-finite or mistyped options, an oversized request. Each gets
a typed error naming the field, through the public API against the session emulator."""

import datetime as dt
import math

import numpy as np
from langchain_core.documents import Document

from grounding_core import (
    AnswerSpec,
    ChunkSearchSpec,
    ConfigurationError,
    DataStoreSpec,
    DeveloperKnowledgeAnswerQuery,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    GroundingSpec,
    InputError,
    RetryPolicy,
    SummarySpec,
)
from langchain_grounding import GroundingChecker
from tests.reliability.bad_input_table import clear_error_test, table_size_test
from tests.reliability.test_bad_inputs import connection, search

FACT = "Lighthouses guide ships."
SURROGATE = "holds a lone surrogate (U+D800) at character"


def answering(emulator, **options):
    return DiscoveryEngineAnswerQuery(connection(emulator), data_store_id="test-docs", **options)


def dk(emulator):
    return DeveloperKnowledgeConnection(emulator_host=emulator.address)


def check_with(emulator, metadata):
    """The result of checking ``FACT`` against an empty source and ``FACT`` with
    ``metadata``."""
    sources = ["", GroundingSource(FACT, metadata)]
    return GroundingCheck(connection(emulator)).check(FACT, sources, sources).result


def circular():
    loop: dict = {}
    loop["self"] = loop
    return {"x": loop}


def nested(levels):
    value: list = []
    for _ in range(levels):
        value = [value]
    return {"deep": value}


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- lone surrogates in what the client sends ---------------------------------------------
    (
        "lone surrogate in a search query",
        lambda e: search(e, "light\ud800house"),
        InputError,
        [f"query {SURROGATE} 5", "not valid UTF-8", "or remove it"],
    ),
    (
        "lone surrogate in a filter",
        lambda e: search(e, "x", filter='lang: ANY("\ud800")'),
        InputError,
        [f"ChunkSearchSpec.filter {SURROGATE} 11"],
    ),
    (
        "lone surrogate in order_by",
        lambda e: search(e, "x", order_by="\ud800"),
        InputError,
        [f"ChunkSearchSpec.order_by {SURROGATE} 0"],
    ),
    (
        "lone surrogate in an answer query",
        lambda e: answering(e).answer("why\ud800"),
        InputError,
        [f"query {SURROGATE} 3"],
    ),
    (
        "lone surrogate in an answer preamble",
        lambda e: answering(e, preamble="be \ud800 brief").answer("why"),
        InputError,
        [f"AnswerSpec.preamble {SURROGATE} 3"],
    ),
    (
        "lone surrogate in a Developer Knowledge query",
        lambda e: DeveloperKnowledgeChunkSearch(dk(e)).search("\ud800 yield"),
        InputError,
        [f"query {SURROGATE} 0"],
    ),
    (
        "lone surrogate in a Developer Knowledge answer filter",
        lambda e: DeveloperKnowledgeAnswerQuery(dk(e), filter='data_source = "\ud800"').answer(
            "yield"
        ),
        InputError,
        [f"filter {SURROGATE} 15"],
    ),
    (
        "lone surrogate in a session's display name",
        lambda e: answering(e).create_session(display_name="\ud800"),
        InputError,
        [f"display_name {SURROGATE} 0"],
    ),
    (
        "lone surrogate in a boost condition",
        lambda e: ChunkSearchSpec(
            boost_spec={"condition_boost_specs": [{"condition": "\ud800", "boost": 0.5}]}
        ),
        InputError,
        [
            "boost_spec['condition_boost_specs'][0]['condition'] holds a lone surrogate (U+D800)",
            {"field": "boost_spec['condition_boost_specs'][0]['condition']"},
        ],
    ),
    (
        "lone surrogate in a metadata key",
        lambda e: check_with(e, {"ti\ud800tle": "T"}),
        InputError,
        ["sources[1].metadata holds a lone surrogate (U+D800)", {"field": "sources[1].metadata"}],
    ),
    (
        "lone surrogate in a nested metadata value",
        lambda e: check_with(e, {"tags": ["ok", "b\ud800"]}),
        InputError,
        [
            "sources[1].metadata['tags'][1] holds a lone surrogate (U+D800)",
            {"field": "sources[1].metadata['tags'][1]"},
        ],
    ),
    # -- metadata that JSON cannot carry ------------------------------------------------------
    (
        "circular metadata",
        lambda e: check_with(e, circular()),
        InputError,
        ["sources[1].metadata['x']['self'] is circular (it contains itself)"],
    ),
    (
        "metadata nested too deep",
        lambda e: check_with(e, nested(200)),
        InputError,
        ["sources[1].metadata['deep'][0][0]...", "is nested more than 64 levels deep"],
    ),
    (
        "metadata that is a list",
        lambda e: check_with(e, ["title", "T"]),
        InputError,
        ["sources[1].metadata must be a dict of attributes, got list"],
    ),
    (
        "binary bytes in metadata",
        lambda e: check_with(e, {"raw": b"\x89PNG\xff"}),
        InputError,
        ["sources[1].metadata['raw'] is bytes that are not UTF-8 text"],
    ),
    (
        "a tuple metadata key",
        lambda e: check_with(e, {("a", "b"): 1}),
        InputError,
        ["sources[1].metadata has a key of type tuple", "use string keys"],
    ),
    (
        "circular metadata through LangChain",
        lambda e: GroundingChecker(project_id="p", emulator_host=e.address).check(
            FACT, [Document(page_content=FACT, metadata=circular())]
        ),
        InputError,
        ["sources[0].metadata['x']['self'] is circular"],
    ),
    # -- options that would break every call ---------------------------------------------------
    (
        "infinite timeout",
        lambda e: DiscoveryEngineConnection(timeout=math.inf),
        ConfigurationError,
        ["timeout must be a finite number, got inf", {"field": "timeout"}],
    ),
    (
        "NaN timeout",
        lambda e: DiscoveryEngineConnection(timeout=math.nan),
        ConfigurationError,
        ["timeout must be a finite number, got nan", {"field": "timeout"}],
    ),
    (
        "timeout as a string",
        lambda e: DiscoveryEngineConnection(timeout="30"),
        ConfigurationError,
        ["timeout must be a finite number, got str", {"field": "timeout"}],
    ),
    (
        "NaN retry deadline",
        lambda e: RetryPolicy(deadline=math.nan),
        ConfigurationError,
        ["RetryPolicy.deadline must be a finite number, got nan"],
    ),
    (
        "infinite retry maximum",
        lambda e: RetryPolicy(maximum=math.inf),
        ConfigurationError,
        ["RetryPolicy.maximum must be a finite number, got inf"],
    ),
    (
        "retry multiplier as a string",
        lambda e: RetryPolicy(multiplier="2"),
        ConfigurationError,
        ["RetryPolicy.multiplier must be a finite number, got str"],
    ),
    (
        "claim-level score 'no'",
        lambda e: GroundingSpec(enable_claim_level_score="no"),
        InputError,
        ["GroundingSpec.enable_claim_level_score must be True or False, got str"],
    ),
    (
        "include_citations 'no'",
        lambda e: AnswerSpec(include_citations="no"),
        InputError,
        ["AnswerSpec.include_citations must be True or False, got str"],
    ),
    (
        "max_rephrase_steps True",
        lambda e: AnswerSpec(max_rephrase_steps=True),
        InputError,
        ["AnswerSpec.max_rephrase_steps must be an integer or None, got bool"],
    ),
    (
        "pin_unexpanded_results 'yes'",
        lambda e: ChunkSearchSpec(query_expansion="auto", pin_unexpanded_results="yes"),
        InputError,
        ["ChunkSearchSpec.pin_unexpanded_results must be True or False, got str"],
    ),
    (
        "k as a float",
        lambda e: ChunkSearchSpec(k=4.0),
        InputError,
        ["ChunkSearchSpec.k must be an integer, got float"],
    ),
    (
        "use_semantic_chunks 1",
        lambda e: SummarySpec(use_semantic_chunks=1),
        InputError,
        ["SummarySpec.use_semantic_chunks must be True or False, got int"],
    ),
    (
        "Developer Knowledge k as a string",
        lambda e: DeveloperKnowledgeSearchSpec(k="3"),
        InputError,
        ["DeveloperKnowledgeSearchSpec.k must be an integer, got str"],
    ),
    (
        "data store filter as a number",
        lambda e: DataStoreSpec("manuals", filter=3),
        InputError,
        ["DataStoreSpec.filter must be a string, got int"],
    ),
    # -- a request no server accepts -----------------------------------------------------------
    (
        "an 11 MiB grounding request",
        lambda e: check_with(e, {"blob": "x" * (11 * 1024 * 1024)}),
        InputError,
        ["the CheckGrounding request is 11,534,", "refuses requests over 10,485,760 bytes"],
    ),
    (
        "an 11 MiB filter",
        lambda e: search(e, "x", filter="x" * 11_534_336),
        InputError,
        ["the Search request is 11,534,", "refuses requests over 10,485,760 bytes"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=33)


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


def test_odd_metadata_that_json_can_carry_is_converted(emulator):
    metadata = {
        "vector": np.array([0.5, 0.25]),
        "score": np.float32(0.75),
        "when": dt.datetime(2024, 5, 1, tzinfo=dt.UTC),
        "tags": {"b", "a"},
        "missing": math.nan,
        "label": "é".encode(),
        3: "three",
    }
    result = check_with(emulator, metadata)
    assert result.claims[0].source_indices == (1,)
    assert result.cited_chunks[0].attributes == {
        "vector": "[0.5, 0.25]",
        "score": "0.75",
        "when": "2024-05-01T00:00:00+00:00",
        "tags": '["a", "b"]',
        "label": "é",
        "3": "three",
    }
    # metadata=None is no metadata.
    bare_source = [GroundingSource(FACT, None)]
    bare = GroundingCheck(connection(emulator)).check(FACT, bare_source, bare_source).result
    assert bare.cited_chunks[0].attributes == {}


def test_a_numpy_array_in_a_documents_metadata_reaches_the_check(emulator):
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    document = Document(page_content=FACT, metadata={"embedding": np.array([1, 2]), "n": None})
    report = checker.check(FACT, [document])
    assert report.support_score == 1.0
    assert report.result.cited_chunks[0].attributes == {"embedding": "[1, 2]"}

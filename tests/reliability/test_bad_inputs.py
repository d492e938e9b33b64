"""Every bad input gets a clear error naming the field and the limit, or is handled; none
crashes the emulator or corrupts its state."""

import math

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import DeveloperKnowledgeClient
from google.developer_knowledge_v1 import types as dk
from pydantic import ValidationError

from grounding_core import (
    ChunkSearchSpec,
    ConfigurationError,
    DeveloperKnowledgeChunkSearch,
    DeveloperKnowledgeConnection,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineChunkSearch,
    DiscoveryEngineConnection,
    DiscoveryEngineTarget,
    GroundingCheck,
    GroundingSource,
    GroundingSpec,
    InputError,
    InvalidRequestError,
    NotFoundError,
    OffsetError,
    RetryPolicy,
    Utf8Offsets,
)
from grounding_core.grounding.check import MAX_ANSWER_CHARS, MAX_FACT_CHARS, MAX_FACTS
from langchain_grounding import (
    DeveloperKnowledgeAnswer,
    DiscoveryEngineRetriever,
    GroundingChecker,
)
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
STORE = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
CONFIG = STORE.grounding_config_path
SERVING = STORE.serving_config_path


def connection(emulator):
    return DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)


def search(emulator, query, *, data_store_id="test-docs", **options):
    chunk_search = DiscoveryEngineChunkSearch(
        connection(emulator), data_store_id=data_store_id, **options
    )
    return chunk_search.search(query)


def check(emulator, answer, sources):
    """The ``GroundingResult`` of checking ``answer`` against ``sources``."""
    return GroundingCheck(connection(emulator)).check(answer, sources, sources).result


def check_request(emulator, answer, sources):
    """The request a check sends (an empty answer is refused there; ``check`` does not send
    one: it reports that there is nothing to check)."""
    return GroundingCheck(connection(emulator)).request(answer, sources)


def raw_search(emulator, **fields):
    client = de.SearchServiceClient(
        transport=de.SearchServiceClient.get_transport_class("grpc")(
            channel=__import__("grpc").insecure_channel(emulator.address)
        )
    )
    fields.setdefault("serving_config", SERVING)
    return client.search(request=de.SearchRequest(query="lighthouse", **fields))


def raw_check(emulator, **fields):
    client = connection(emulator).client(de.GroundedGenerationServiceClient)
    fields.setdefault("grounding_config", CONFIG)
    fields.setdefault("answer_candidate", "Lighthouses guide ships.")
    return client.check_grounding(request=de.CheckGroundingRequest(**fields))


# (id, callable taking the emulator, expected exception, message fragments)
CASES = [
    # -- targets and settings --------------------------------------------------------------
    (
        "empty project",
        lambda e: DiscoveryEngineTarget(project="", data_store="d"),
        ConfigurationError,
        ["project is empty"],
    ),
    (
        "no store, no engine",
        lambda e: DiscoveryEngineTarget(project="p"),
        ConfigurationError,
        ["no data store and no engine"],
    ),
    (
        "store and engine",
        lambda e: DiscoveryEngineTarget(project="p", data_store="d", engine="e"),
        ConfigurationError,
        ["both a data store", "exactly one"],
    ),
    (
        "id with a slash",
        lambda e: DiscoveryEngineTarget(project="p", data_store="a/b"),
        ConfigurationError,
        ["data_store 'a/b' is not a valid resource id"],
    ),
    (
        "project not a string",
        lambda e: DiscoveryEngineTarget(project=7, data_store="d"),
        ConfigurationError,
        ["project must be a string"],
    ),
    (
        "bad serving config name",
        lambda e: DiscoveryEngineTarget.from_serving_config("x/y"),
        ConfigurationError,
        ["is not one of the three forms"],
    ),
    (
        "zero timeout",
        lambda e: DiscoveryEngineConnection(timeout=0),
        ConfigurationError,
        ["timeout must be > 0"],
    ),
    (
        "retry initial 0",
        lambda e: RetryPolicy(initial=0),
        ConfigurationError,
        ["initial must be > 0"],
    ),
    (
        "unknown client option",
        lambda e: DiscoveryEngineConnection(client_options={"nope": 1}),
        ConfigurationError,
        ["client_options has an unknown key"],
    ),
    (
        "emulator and endpoint",
        lambda e: DiscoveryEngineConnection(
            emulator_host="h:1", client_options={"api_endpoint": "x"}
        ),
        ConfigurationError,
        ["pick one"],
    ),
    # -- search options --------------------------------------------------------------------
    ("k 0", lambda e: ChunkSearchSpec(k=0), InputError, ["k must be >= 1, got 0"]),
    ("k -1", lambda e: ChunkSearchSpec(k=-1), InputError, ["k must be >= 1, got -1"]),
    ("k a string", lambda e: ChunkSearchSpec(k="5"), InputError, ["k must be an integer"]),
    ("k nan", lambda e: ChunkSearchSpec(k=math.nan), InputError, ["k must be an integer"]),
    (
        "4 next chunks",
        lambda e: ChunkSearchSpec(num_next_chunks=4),
        InputError,
        [
            "num_next_chunks must be between 0 and 3, got 4",
            {"field": "num_next_chunks", "limit": 3},
        ],
    ),
    (
        "neighbours in documents mode",
        lambda e: ChunkSearchSpec(search_mode="documents", num_previous_chunks=1),
        InputError,
        ["need search_mode='chunks'"],
    ),
    (
        "bad relevance threshold",
        lambda e: ChunkSearchSpec(relevance_threshold="max"),
        InputError,
        ["relevance_threshold must be one of"],
    ),
    (
        "Developer Knowledge filter of 501 characters",
        lambda e: DeveloperKnowledgeSearchSpec(filter="x" * 501),
        InputError,
        ["filter has 501 characters", "at most 500", {"field": "filter", "limit": 500}],
    ),
    (
        "empty query",
        lambda e: search(e, "  "),
        InputError,
        ["query is empty"],
    ),
    (
        "query not a string",
        lambda e: search(e, None),
        InputError,
        ["query must be a string"],
    ),
    (
        "Developer Knowledge query of 501 characters",
        lambda e: DeveloperKnowledgeChunkSearch(
            DeveloperKnowledgeConnection(emulator_host=e.address)
        ).search("q" * 501),
        InputError,
        ["query has 501 characters", "at most 500", {"field": "query", "limit": 500}],
    ),
    (
        "unknown boost spec field",
        lambda e: search(e, "x", boost_spec={"bogus": 1}),
        InputError,
        ["boost_spec is not a valid BoostSpec"],
    ),
    (
        "malformed filter",
        lambda e: search(e, "x", filter='lang: ANY("en"'),
        InvalidRequestError,
        ["INVALID_ARGUMENT", "filter"],
    ),
    (
        "unknown data store",
        lambda e: search(e, "x", data_store_id="nope"),
        NotFoundError,
        ["dataStores/nope", "NOT_FOUND"],
    ),
    # -- grounding check -------------------------------------------------------------------
    (
        "empty answer",
        lambda e: check_request(e, "", ["fact"]),
        InputError,
        ["answer_candidate is empty"],
    ),
    (
        "whitespace answer",
        lambda e: check_request(e, " \n\t ", ["fact"]),
        InputError,
        ["answer_candidate is empty"],
    ),
    (
        "answer not a string",
        lambda e: check(e, b"bytes", ["fact"]),
        InputError,
        ["answer_candidate must be a string"],
    ),
    (
        "10 MB answer",
        lambda e: check(e, "word " * 2_000_000, ["fact"]),
        InputError,
        [
            "CheckGrounding accepts at most 4096",
            {"field": "answer_candidate", "limit": MAX_ANSWER_CHARS},
        ],
    ),
    (
        "201 facts",
        lambda e: check(e, "An answer.", ["fact"] * 201),
        InputError,
        ["201 non-empty sources", "at most 200", {"field": "facts", "limit": MAX_FACTS}],
    ),
    (
        "20k-character fact",
        lambda e: check(e, "An answer.", ["f" * 20_000]),
        InputError,
        [
            "20,000 characters",
            "at most 10,000",
            {"field": "facts[0].fact_text", "limit": MAX_FACT_CHARS},
        ],
    ),
    (
        "lone surrogate in answer",
        lambda e: check(e, "bad \ud800 text", ["fact"]),
        InputError,
        ["answer_candidate holds a lone surrogate"],
    ),
    (
        "lone surrogate in a fact",
        lambda e: check(e, "An answer.", ["ok", "\udc00"]),
        InputError,
        ["facts[1].fact_text holds a lone surrogate"],
    ),
    (
        "sources as one string",
        lambda e: check(e, "An answer.", "one big string"),
        InputError,
        ["sources must be a list"],
    ),
    (
        "a source of the wrong type",
        lambda e: check(e, "An answer.", [3.5]),
        InputError,
        ["sources[0] must be a str or GroundingSource, got float"],
    ),
    (
        "citation threshold 1.5",
        lambda e: GroundingSpec(citation_threshold=1.5),
        InputError,
        ["citation_threshold must be a number between 0 and 1"],
    ),
    (
        "citation threshold NaN",
        lambda e: GroundingSpec(citation_threshold=math.nan),
        InputError,
        ["citation_threshold must be a number between 0 and 1"],
    ),
    # -- offsets ---------------------------------------------------------------------------
    (
        "offset inside a character",
        lambda e: Utf8Offsets("a😀b").to_char(2),
        OffsetError,
        ["falls inside the 4-byte character"],
    ),
    (
        "offset beyond the text",
        lambda e: Utf8Offsets("abc").to_char(9),
        OffsetError,
        ["byte offset 9 is outside the text"],
    ),
    (
        "negative string index",
        lambda e: Utf8Offsets("abc").to_byte(-1),
        OffsetError,
        ["string index -1 is outside the text"],
    ),
    # -- LangChain components --------------------------------------------------------------
    (
        "retriever k=0 per call",
        lambda e: DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=e.address
        ).invoke("x", k=0),
        InputError,
        ["k must be >= 1, got 0"],
    ),
    (
        "retriever with 4 neighbours",
        lambda e: DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", emulator_host=e.address, num_next_chunks=4
        ),
        ValidationError,
        ["num_next_chunks must be between 0 and 3, got 4"],
    ),
    (
        "checker given a string",
        lambda e: GroundingChecker(project_id=PROJECT, emulator_host=e.address).invoke("answer"),
        InputError,
        ["got the answer alone (a string)", "with_grounding(chain, checker)"],
    ),
    (
        "checker documents of the wrong type",
        lambda e: GroundingChecker(project_id=PROJECT, emulator_host=e.address).invoke(
            {"answer": "a", "documents": [{"page_content": "x"}]}
        ),
        InputError,
        ["documents[0] must be a Document or str, got dict"],
    ),
    (
        "checker without documents",
        lambda e: GroundingChecker(project_id=PROJECT, emulator_host=e.address).invoke(
            {"answer": "a"}
        ),
        InputError,
        ["no documents to check the answer against"],
    ),
    (
        "answer runnable without a query",
        lambda e: DeveloperKnowledgeAnswer(emulator_host=e.address).invoke({"q": 1}),
        InputError,
        ["expected the query"],
    ),
    # -- raw requests to the emulator (Google's own client, no checks on our side) ---------
    (
        "negative page_size",
        lambda e: raw_search(e, page_size=-1),
        core_exceptions.InvalidArgument,
        ["page_size"],
    ),
    (
        "malformed serving config",
        lambda e: raw_search(e, serving_config="projects/p/oops"),
        core_exceptions.InvalidArgument,
        ["serving_config"],
    ),
    (
        "chunk_spec above 3",
        lambda e: raw_search(
            e,
            content_search_spec={
                "search_result_mode": "CHUNKS",
                "chunk_spec": {"num_next_chunks": 5},
            },
        ),
        core_exceptions.InvalidArgument,
        ["num_next_chunks"],
    ),
    (
        "raw malformed filter",
        lambda e: raw_search(e, filter="rank >"),
        core_exceptions.InvalidArgument,
        ["filter"],
    ),
    (
        "raw citation threshold 2",
        lambda e: raw_check(e, grounding_spec={"citation_threshold": 2.0}),
        core_exceptions.InvalidArgument,
        ["citation_threshold"],
    ),
    (
        "raw 201 facts",
        lambda e: raw_check(e, facts=[{"fact_text": "f"}] * 201),
        core_exceptions.InvalidArgument,
        ["facts", "200"],
    ),
    (
        "raw empty answer",
        lambda e: raw_check(e, answer_candidate=""),
        core_exceptions.InvalidArgument,
        ["answer_candidate"],
    ),
    (
        "raw malformed grounding config",
        lambda e: raw_check(e, grounding_config="nope"),
        core_exceptions.InvalidArgument,
        ["grounding_config"],
    ),
    (
        "raw bad document name",
        lambda e: (
            DeveloperKnowledgeConnection(emulator_host=e.address)
            .client(DeveloperKnowledgeClient)
            .get_document(request=dk.GetDocumentRequest(name="not-a-document-name"))
        ),
        core_exceptions.InvalidArgument,
        ["name"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=40)


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


def test_handled_inputs(emulator):
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    checker = GroundingCheck(connection)
    # An empty answer is not sent: its report says there is nothing to check.
    empty = checker.check(" \n", ["fact"], ["fact"])
    assert (empty.result.claims, empty.passed) == ((), False)
    assert empty.skipped_reason is not None
    # NUL bytes are valid UTF-8: checked like any text.
    sources = ["Lighthouses guide ships."]
    result = checker.check("Lighthouses guide ships.\x00", sources, sources).result
    assert result.claims[0].status == "supported"
    # Nested and non-string metadata are serialized; citations still map to the source.
    source = GroundingSource("Lighthouses guide ships.", {"nested": {"a": [1, None]}, "n": 3})
    result = checker.check("Lighthouses guide ships.", ["", source], ["", source]).result
    assert result.claims[0].source_indices == (1,)
    assert result.cited_chunks[0].attributes == {"nested": '{"a": [1, null]}', "n": "3"}
    # k above one page (100) is fetched page by page.
    many = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs", k=101)
    assert len(many.search("lighthouse")) == 101
    connection.close()


def test_the_emulator_still_serves_after_all_of_that(emulator):
    store = emulator.store.get("test-docs")
    chunks_before = len(store.chunks)
    for _, call, error, _ in CASES:
        with pytest.raises(error):
            call(emulator)
    assert len(emulator.store.get("test-docs").chunks) == chunks_before
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    search = DiscoveryEngineChunkSearch(connection, data_store_id="test-docs")
    top = search.search("lighthouse keeper number 131", k=1)
    assert top[0].document_id == "page-13"
    knowledge = DeveloperKnowledgeConnection(emulator_host=emulator.address)
    assert DeveloperKnowledgeChunkSearch(knowledge).search("for statement")
    connection.close()
    knowledge.close()

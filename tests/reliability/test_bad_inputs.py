"""Every bad input gets a clear error naming the field and the limit, or is handled; none
crashes the emulator or corrupts its state."""

import math

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.developer_knowledge_v1 import types as dk
from pydantic import ValidationError

from grounding_core import (
    CallOptions,
    ChunkSearchSpec,
    ConfigurationError,
    DeveloperKnowledgeClients,
    DeveloperKnowledgeSearchSpec,
    DiscoveryEngineClients,
    DiscoveryEngineTarget,
    GroundingSource,
    GroundingSpec,
    InputError,
    InvalidRequestError,
    NotFoundError,
    OffsetError,
    RetryPolicy,
    Utf8Offsets,
    check_grounding,
    grounding_config_path,
    search_chunks,
    search_developer_knowledge,
)
from langchain_grounding import (
    DeveloperKnowledgeAnswer,
    DiscoveryEngineRetriever,
    GroundingChecker,
)
from tests.reliability.bad_input_table import clear_error_test, table_size_test

PROJECT = "test-project"
STORE = DiscoveryEngineTarget(project=PROJECT, data_store="test-docs")
CONFIG = grounding_config_path(PROJECT)
SERVING = STORE.serving_config_path


def check(emulator, answer, sources):
    return check_grounding(
        DiscoveryEngineClients(emulator_host=emulator.address), CONFIG, answer, sources
    )


def raw_search(emulator, **fields):
    client = de.SearchServiceClient(
        transport=de.SearchServiceClient.get_transport_class("grpc")(
            channel=__import__("grpc").insecure_channel(emulator.address)
        )
    )
    fields.setdefault("serving_config", SERVING)
    return client.search(request=de.SearchRequest(query="lighthouse", **fields))


def raw_check(emulator, **fields):
    clients = DiscoveryEngineClients(emulator_host=emulator.address)
    fields.setdefault("grounding_config", CONFIG)
    fields.setdefault("answer_candidate", "Lighthouses guide ships.")
    return clients.grounded_generation().check_grounding(request=de.CheckGroundingRequest(**fields))


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
    ("zero timeout", lambda e: CallOptions(timeout=0), ConfigurationError, ["timeout must be > 0"]),
    (
        "retry initial 0",
        lambda e: RetryPolicy(initial=0),
        ConfigurationError,
        ["initial must be > 0"],
    ),
    (
        "unknown client option",
        lambda e: DiscoveryEngineClients(client_options={"nope": 1}),
        ConfigurationError,
        ["client_options has an unknown key"],
    ),
    (
        "emulator and endpoint",
        lambda e: DiscoveryEngineClients(emulator_host="h:1", client_options={"api_endpoint": "x"}),
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
        ["num_next_chunks must be between 0 and 3, got 4"],
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
        ["filter has 501 characters", "at most 500"],
    ),
    (
        "empty query",
        lambda e: search_chunks(DiscoveryEngineClients(emulator_host=e.address), STORE, "  "),
        InputError,
        ["query is empty"],
    ),
    (
        "query not a string",
        lambda e: search_chunks(DiscoveryEngineClients(emulator_host=e.address), STORE, None),
        InputError,
        ["query must be a string"],
    ),
    (
        "Developer Knowledge query of 501 characters",
        lambda e: search_developer_knowledge(
            DeveloperKnowledgeClients(emulator_host=e.address), "q" * 501
        ),
        InputError,
        ["query has 501 characters", "at most 500"],
    ),
    (
        "unknown boost spec field",
        lambda e: search_chunks(
            DiscoveryEngineClients(emulator_host=e.address),
            STORE,
            "x",
            ChunkSearchSpec(boost_spec={"bogus": 1}),
        ),
        InputError,
        ["boost_spec is not a valid BoostSpec"],
    ),
    (
        "malformed filter",
        lambda e: search_chunks(
            DiscoveryEngineClients(emulator_host=e.address),
            STORE,
            "x",
            ChunkSearchSpec(filter='lang: ANY("en"'),
        ),
        InvalidRequestError,
        ["INVALID_ARGUMENT", "filter"],
    ),
    (
        "unknown data store",
        lambda e: search_chunks(
            DiscoveryEngineClients(emulator_host=e.address), STORE.replace(data_store="nope"), "x"
        ),
        NotFoundError,
        ["dataStores/nope", "NOT_FOUND"],
    ),
    # -- grounding check -------------------------------------------------------------------
    ("empty answer", lambda e: check(e, "", ["fact"]), InputError, ["answer_candidate is empty"]),
    (
        "whitespace answer",
        lambda e: check(e, " \n\t ", ["fact"]),
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
        ["CheckGrounding accepts at most 4096"],
    ),
    (
        "201 facts",
        lambda e: check(e, "An answer.", ["fact"] * 201),
        InputError,
        ["201 non-empty sources", "at most 200"],
    ),
    (
        "20k-character fact",
        lambda e: check(e, "An answer.", ["f" * 20_000]),
        InputError,
        ["20,000 characters", "at most 10,000"],
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
            DeveloperKnowledgeClients(emulator_host=e.address)
            .developer_knowledge()
            .get_document(request=dk.GetDocumentRequest(name="not-a-document-name"))
        ),
        core_exceptions.InvalidArgument,
        ["name"],
    ),
]


test_the_table_is_big_enough = table_size_test(CASES, minimum=40)


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


def test_handled_inputs(emulator):
    clients = DiscoveryEngineClients(emulator_host=emulator.address)
    # NUL bytes are valid UTF-8: checked like any text.
    result = check_grounding(
        clients, CONFIG, "Lighthouses guide ships.\x00", ["Lighthouses guide ships."]
    )
    assert result.claims[0].status == "supported"
    # Nested and non-string metadata are serialized; citations still map to the source.
    source = GroundingSource("Lighthouses guide ships.", {"nested": {"a": [1, None]}, "n": 3})
    result = check_grounding(clients, CONFIG, "Lighthouses guide ships.", ["", source])
    assert result.claims[0].source_indices == (1,)
    assert result.cited_chunks[0].attributes == {"nested": '{"a": [1, null]}', "n": "3"}
    # k above one page (100) is fetched page by page.
    many = search_chunks(clients, STORE, "lighthouse", ChunkSearchSpec(k=101))
    assert len(many) == 101


def test_the_emulator_still_serves_after_all_of_that(emulator):
    store = emulator.store.get("test-docs")
    chunks_before = len(store.chunks)
    for _, call, error, _ in CASES:
        with pytest.raises(error):
            call(emulator)
    assert len(emulator.store.get("test-docs").chunks) == chunks_before
    clients = DiscoveryEngineClients(emulator_host=emulator.address)
    top = search_chunks(clients, STORE, "lighthouse keeper number 131", ChunkSearchSpec(k=1))
    assert top[0].document_id == "page-13"
    knowledge = DeveloperKnowledgeClients(emulator_host=emulator.address)
    assert search_developer_knowledge(knowledge, "for statement")
    clients.close()
    knowledge.close()

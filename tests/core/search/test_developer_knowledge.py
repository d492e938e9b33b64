"""``grounding_core.search.developer_knowledge``: ``DeveloperKnowledgeChunkSearch``.

Its constructor, ``replace`` and ``repr``; ``search`` and ``asearch`` against the session
emulator's Developer Knowledge corpus over gRPC: the spec's ``k`` and ``filter`` and their
per-call values, the request (a page of ``k``, at most 100: seen by recording the request
Google's client is called with, which is still sent), the 500-character query limit (at the
limit and one past it), only as many pages fetched as ``k`` needs, the connection's call
options, Google's errors translated. And the records: every field of a ``DocumentChunk`` as a
``SourceChunk`` (``grounding_core._convert.chunk_from_developer_knowledge``, what the search
returns); the citation spans of a Developer Knowledge answer, whatever offsets it sends.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from google.api_core import exceptions as core_exceptions
from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient
from google.developer_knowledge_v1 import types as dk
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding_core import (
    DeveloperKnowledgeConnection,
    InputError,
    NotFoundError,
    RetryPolicy,
    ServiceUnavailableError,
    SourceChunk,
)
from grounding_core._convert import chunk_from_developer_knowledge
from grounding_core.answers.developer_knowledge import answer_from_developer_knowledge
from grounding_core.search.developer_knowledge import (
    DEVELOPER_KNOWLEDGE,
    DeveloperKnowledgeChunkSearch,
)
from grounding_core.search.specs import DeveloperKnowledgeSearchSpec
from grounding_emulator import EmulatorServer
from tests.core.emulated import result_of

KNOWLEDGE = "sort a list"  # 127 chunks of the Developer Knowledge corpus match
PYTHON_DOCS = 'data_source = "docs.python.org"'
NOWHERE = 'data_source = "nowhere"'
SYNC_ASYNC = pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])


@pytest.fixture
async def connection(emulator: EmulatorServer):
    """A connection to the session emulator without retries (a fault is not retried)."""
    made = DeveloperKnowledgeConnection(emulator_host=emulator.address, retry=None)
    yield made
    made.close()
    await made.aclose()


@pytest.fixture
def calls(emulator: EmulatorServer):
    """How many SearchDocumentChunks calls the emulator served since the fixture was set up."""
    emulator.faults.delay("SearchDocumentChunks", seconds=0)  # only counted
    start = emulator.faults.injected
    return lambda: emulator.faults.injected - start


def searching(search: DeveloperKnowledgeChunkSearch, asynchronous: bool):
    return search.asearch if asynchronous else search.search


def test_the_constructor_builds_the_spec():
    connection = DeveloperKnowledgeConnection(emulator_host="h:1")
    search = DeveloperKnowledgeChunkSearch(connection, k=2, filter="f")
    assert search.connection is connection
    assert search.spec == DeveloperKnowledgeSearchSpec(k=2, filter="f")
    assert DeveloperKnowledgeChunkSearch(connection).spec == DeveloperKnowledgeSearchSpec(k=5)
    assert repr(search) == "DeveloperKnowledgeChunkSearch(k=2, endpoint='h:1')"
    assert DEVELOPER_KNOWLEDGE == "the Developer Knowledge corpus"


@pytest.mark.parametrize(
    ("kwargs", "field", "limit", "words"),
    [
        ({"k": 0}, "k", None, "^k must be >= 1"),
        ({"filter": "f" * 501}, "filter", 500, "^filter has 501 characters"),
        ({"filter": None}, "filter", None, "must be a string"),
    ],
)
def test_bad_settings_are_refused_when_the_search_is_built(kwargs, field, limit, words):
    connection = DeveloperKnowledgeConnection(emulator_host="h:1")
    with pytest.raises(InputError, match=words) as info:
        DeveloperKnowledgeChunkSearch(connection, **kwargs)
    assert (info.value.field, info.value.limit) == (field, limit)


def test_an_unknown_option_is_named():
    connection = DeveloperKnowledgeConnection(emulator_host="h:1")
    with pytest.raises(TypeError, match="unexpected keyword argument 'order_by'"):
        DeveloperKnowledgeChunkSearch(connection, order_by="x")  # type: ignore[call-arg]


def test_replace_keeps_the_class_of_a_subclass():
    class Mine(DeveloperKnowledgeChunkSearch):
        __slots__ = ()

    connection = DeveloperKnowledgeConnection(emulator_host="h:1")
    assert type(Mine(connection).replace(k=2)) is Mine


def test_replace_changes_the_spec_and_validates_it_again():
    connection = DeveloperKnowledgeConnection(emulator_host="h:1")
    search = DeveloperKnowledgeChunkSearch(connection, k=2, filter="f")
    replaced = search.replace(k=4)
    assert replaced.spec == DeveloperKnowledgeSearchSpec(k=4, filter="f")
    assert replaced.connection is connection
    assert search.replace(filter="g").spec == DeveloperKnowledgeSearchSpec(k=2, filter="g")
    assert search.spec == DeveloperKnowledgeSearchSpec(k=2, filter="f")
    with pytest.raises(InputError) as info:
        search.replace(k=0)
    assert info.value.field == "k"


@SYNC_ASYNC
async def test_a_search_returns_the_spec_s_k_chunks_of_the_corpus(connection, asynchronous):
    search = DeveloperKnowledgeChunkSearch(connection)
    chunks = await result_of(searching(search, asynchronous), "context manager with statement")
    assert type(chunks) is list
    assert len(chunks) == 5
    top = chunks[0]
    assert top.data_source == "docs.python.org"
    assert top.name == f"{top.document_name}/chunks/{top.id}"
    assert top.document_name == "documents/" + top.uri.removeprefix("https://")
    assert top.document_id == top.uri.removeprefix("https://")
    assert top.update_time is not None
    assert top.relevance_score is not None
    assert 0 < top.relevance_score <= 1


@SYNC_ASYNC
async def test_per_call_k_and_filter_override_the_spec_for_that_call(connection, asynchronous):
    search = DeveloperKnowledgeChunkSearch(connection, k=3)
    call = searching(search, asynchronous)
    assert len(await result_of(call, KNOWLEDGE)) == 3
    assert len(await result_of(call, KNOWLEDGE, k=1)) == 1
    python = await result_of(call, "yield statement", k=2, filter=PYTHON_DOCS)
    assert len(python) == 2
    assert {c.data_source for c in python} == {"docs.python.org"}
    assert await result_of(call, KNOWLEDGE, filter=NOWHERE) == []
    assert search.spec == DeveloperKnowledgeSearchSpec(k=3)  # left alone
    nowhere = searching(search.replace(filter=NOWHERE), asynchronous)
    assert await result_of(nowhere, KNOWLEDGE) == []
    assert len(await result_of(nowhere, KNOWLEDGE, filter="")) == 3  # "" is a filter: none


@SYNC_ASYNC
async def test_sync_and_async_searches_find_the_same_chunks(connection, asynchronous):
    search = DeveloperKnowledgeChunkSearch(connection, k=3)
    found = await result_of(searching(search, asynchronous), "yield statement")
    assert found == search.search("yield statement")
    assert any(c.uri.endswith("simple_stmts.html#yield") for c in found)


@SYNC_ASYNC
async def test_a_query_has_at_most_500_characters(connection, calls, asynchronous):
    search = DeveloperKnowledgeChunkSearch(connection, k=1)
    call = searching(search, asynchronous)
    assert type(await result_of(call, "list " * 100)) is list  # 500 characters
    assert calls() == 1
    with pytest.raises(InputError, match=r"^query has 501 characters") as info:
        await result_of(call, "list " * 100 + "x")
    assert (info.value.field, info.value.limit) == ("query", 500)
    for query, words in (("", "^query is empty"), ("  ", "^query is empty"), (5, "string")):
        with pytest.raises(InputError, match=words) as info:
            await result_of(call, query)
        assert info.value.field == "query"
    with pytest.raises(InputError) as info:
        await result_of(call, KNOWLEDGE, k=0)
    assert info.value.field == "k"
    with pytest.raises(InputError) as info:
        await result_of(call, KNOWLEDGE, filter="f" * 501)
    assert (info.value.field, info.value.limit) == ("filter", 500)
    assert calls() == 1  # none of the refused ones was sent


@SYNC_ASYNC
@pytest.mark.parametrize(("k", "pages"), [(7, 1), (100, 1), (101, 2), (200, 2)])
async def test_only_the_pages_needed_for_k_are_fetched(connection, calls, asynchronous, k, pages):
    # The service's default page is 5: k=7 in one page shows the page size is k.
    search = DeveloperKnowledgeChunkSearch(connection, k=k)
    chunks = await result_of(searching(search, asynchronous), KNOWLEDGE)
    assert len(chunks) == min(k, 127)
    assert len({c.name for c in chunks}) == len(chunks)
    assert all(c.name.startswith("documents/docs.python.org/") for c in chunks)
    assert calls() == pages


def recording(connection: DeveloperKnowledgeConnection, asynchronous: bool, monkeypatch) -> list:
    """The requests Google's client is called with from now on (each still sent): the page
    size cannot be seen in the records (the emulator sends a page of that many)."""
    sent: list = []
    if asynchronous:
        client = connection.async_client(DeveloperKnowledgeAsyncClient)
        original = client.search_document_chunks

        async def search(*args, **kwargs):
            sent.append(kwargs["request"])
            return await original(*args, **kwargs)
    else:
        client = connection.client(DeveloperKnowledgeClient)
        original = client.search_document_chunks

        def search(*args, **kwargs):  # type: ignore[misc]
            sent.append(kwargs["request"])
            return original(*args, **kwargs)

    monkeypatch.setattr(client, "search_document_chunks", search)
    return sent


@SYNC_ASYNC
@pytest.mark.parametrize(
    ("k", "filter", "page_size"), [(7, "", 7), (100, PYTHON_DOCS, 100), (150, "", 100)]
)
async def test_the_request_asks_for_a_page_of_k_and_at_most_100(
    connection, monkeypatch, asynchronous, k, filter, page_size
):
    sent = recording(connection, asynchronous, monkeypatch)
    search = DeveloperKnowledgeChunkSearch(connection, k=k, filter=filter)
    await result_of(searching(search, asynchronous), " sort a list ")
    (request,) = sent  # the later pages are asked for by Google's pager
    assert type(request) is dk.SearchDocumentChunksRequest
    assert (request.query, request.page_size, request.filter) == (
        " sort a list ",
        page_size,
        filter,
    )


@SYNC_ASYNC
async def test_the_connection_s_retry_policy_is_used(emulator, asynchronous):
    connection = DeveloperKnowledgeConnection(
        emulator_host=emulator.address,
        timeout=5.0,
        retry=RetryPolicy(initial=0.01, maximum=0.01, deadline=5.0),
    )
    try:
        emulator.faults.fail("SearchDocumentChunks", code="UNAVAILABLE", times=1)
        search = DeveloperKnowledgeChunkSearch(connection, k=2)
        assert len(await result_of(searching(search, asynchronous), KNOWLEDGE)) == 2
        assert emulator.faults.pending == 0  # the fault was met, and retried
    finally:
        connection.close()
        await connection.aclose()


@SYNC_ASYNC
async def test_without_retries_an_unavailable_service_is_an_error(
    connection, emulator, asynchronous
):
    emulator.faults.fail("SearchDocumentChunks", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="UNAVAILABLE") as info:
        await result_of(searching(DeveloperKnowledgeChunkSearch(connection), asynchronous), "q")
    assert isinstance(info.value.__cause__, core_exceptions.ServiceUnavailable)


@SYNC_ASYNC
async def test_an_error_names_the_developer_knowledge_corpus(connection, emulator, asynchronous):
    emulator.faults.fail("SearchDocumentChunks", code="NOT_FOUND", times=1)
    words = re.escape("SearchDocumentChunks on the Developer Knowledge corpus failed: NOT_FOUND")
    with pytest.raises(NotFoundError, match=f"^{words}") as info:
        await result_of(searching(DeveloperKnowledgeChunkSearch(connection), asynchronous), "q")
    assert isinstance(info.value.__cause__, core_exceptions.NotFound)


# -- the records --------------------------------------------------------------------------------


def pb(message):
    return type(message).pb(message)


def test_a_document_chunk_keeps_every_field():
    chunk = dk.DocumentChunk(
        parent="documents/docs.example.com/a/b",
        id="c2",
        content="Texte ✓",
        relevance_score=0.5,
        document=dk.Document(
            uri="https://docs.example.com/a/b",
            title="A B",
            description="About a/b",
            data_source="docs.example.com",
            update_time={"seconds": 1_700_000_000},
        ),
    )
    record = chunk_from_developer_knowledge(pb(chunk))
    assert record == SourceChunk(
        name="documents/docs.example.com/a/b/chunks/c2",
        content="Texte ✓",
        id="c2",
        document_id="docs.example.com/a/b",
        document_name="documents/docs.example.com/a/b",
        uri="https://docs.example.com/a/b",
        title="A B",
        description="About a/b",
        data_source="docs.example.com",
        update_time=dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc),
        relevance_score=0.5,
    )
    assert record.to_dict()["update_time"] == "2023-11-14T22:13:20+00:00"


def test_a_bare_document_chunk_has_no_time_and_no_score():
    chunk = dk.DocumentChunk(parent="documents/d", id="c1", relevance_score=0.0)
    assert chunk_from_developer_knowledge(pb(chunk)) == SourceChunk(
        name="documents/d/chunks/c1",
        content="",
        id="c1",
        document_id="d",
        document_name="documents/d",
        relevance_score=0.0,  # sent as zero: kept
    )
    unscored = chunk_from_developer_knowledge(pb(dk.DocumentChunk(parent="documents/d", id="c")))
    assert (unscored.relevance_score, unscored.update_time) == (None, None)


def test_a_chunk_without_an_id_is_named_by_the_digest_of_its_content():
    chunk = dk.DocumentChunk(parent="documents/d", content="Bucket ✓")
    digest = hashlib.sha256("Bucket ✓".encode()).hexdigest()[:16]
    record = chunk_from_developer_knowledge(pb(chunk))
    assert record == SourceChunk(
        name=f"documents/d#{digest}",
        content="Bucket ✓",
        document_id="d",
        document_name="documents/d",
    )
    assert (record.name, record.id, record.document_id) == (f"documents/d#{digest}", "", "d")
    assert (record.update_time, record.relevance_score) == (None, None)


def test_a_parent_without_the_documents_prefix_is_its_own_id():
    record = chunk_from_developer_knowledge(pb(dk.DocumentChunk(parent="other/x", id="c")))
    assert (record.name, record.document_id) == ("other/x/chunks/c", "other/x")


# -- Developer Knowledge answers ----------------------------------------------------------------
# (grounding_core.answers.developer_knowledge; moved here from the old test_convert_properties.py:
# its answer citations come from the same chunk records and byte-span conversion.)

TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=40)


@st.composite
def answers_with_parts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(TEXT, min_size=1, max_size=6))
    return draw(st.sampled_from([" ", "\n", "", "。"])).join(parts)


@settings(max_examples=60, deadline=None)
@given(answers_with_parts(), st.lists(st.integers(-5, 200), min_size=2, max_size=8))
def test_any_answer_citation_offsets_stay_in_the_text(answer, offsets):
    pairs = list(zip(offsets[::2], offsets[1::2], strict=False))
    message = dk.Answer(
        answer_text=answer,
        citations=[dk.Answer.AnswerCitation(start_index=s, end_index=e) for s, e in pairs],
    )
    result = answer_from_developer_knowledge(pb(message))
    assert len(result.citations) == len(pairs)
    for citation in result.citations:
        assert 0 <= citation.start <= citation.end <= len(answer)
        assert citation.text == answer[citation.start : citation.end]
        assert answer.encode()[citation.byte_start : citation.byte_end] == citation.text.encode()

"""google.developers.knowledge.v1.DeveloperKnowledge through DeveloperKnowledgeClient."""

from __future__ import annotations

import pytest
from google import developer_knowledge_v1
from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient
from google.developer_knowledge_v1 import types as dk

from grounding_emulator import CorpusStore, EmulatorServer
from tests.emulator.conftest import ONCE, versioned_client

YIELD = "documents/docs.python.org/{version}/reference/simple_stmts.html#yield"


@pytest.fixture(scope="module")
def yield_name(emulator) -> str:
    """The Developer Knowledge name of the built-in ``yield`` topic (depends on the Python)."""
    store = emulator.store.get("python-docs")
    document = store.documents[store.document_index("yield")]
    return document.developer_knowledge_name


def search(client, query, **fields):
    return client.search_document_chunks(
        request=dk.SearchDocumentChunksRequest(query=query, **fields), **ONCE
    )


def test_search_document_chunks(dk_client, yield_name):
    pager = search(dk_client, "yield statement generator")
    page = next(iter(pager.pages))
    assert len(page.results) == 5  # the documented default page size
    top = page.results[0]
    assert top.parent.startswith("documents/docs.python.org/3")
    assert top.id.startswith("c")
    assert top.content
    assert 0 < top.relevance_score <= 1
    document = top.document
    assert document.name == top.parent
    assert document.uri == "https://" + top.parent.removeprefix("documents/")
    assert document.data_source == "docs.python.org"
    assert document.view == dk.DocumentView.DOCUMENT_VIEW_BASIC
    assert document.content == ""
    assert document.content_length_bytes > 0
    assert document.update_time.year >= 2020
    assert yield_name in {r.parent for r in page.results}


def test_pager_follows_tokens(dk_client):
    pager = search(dk_client, "statement", page_size=30)
    results = list(pager)
    pages = 0
    pager = search(dk_client, "statement", page_size=30)
    for _ in pager.pages:
        pages += 1
    assert len(results) > 60
    assert pages == -(-len(results) // 30)
    assert len({(r.parent, r.id) for r in results}) == len(results)


@pytest.mark.parametrize(
    ("filter_", "field", "allowed"),
    [
        ('data_source = "docs.python.org"', "data_source", lambda v: v == "docs.python.org"),
        ("content_length_bytes < 2000", "content_length_bytes", lambda v: v < 2000),
        ("content_length_bytes >= 20000", "content_length_bytes", lambda v: v >= 20000),
        ('update_time >= "2000-01-01T00:00:00Z"', "update_time", lambda v: v.year >= 2000),
    ],
)
def test_filters_keep_matching_documents(dk_client, filter_, field, allowed):
    unfiltered = list(search(dk_client, "statement", page_size=100))
    results = list(search(dk_client, "statement", page_size=100, filter=filter_))
    assert results
    assert all(allowed(getattr(r.document, field)) for r in results)
    expected = [r for r in unfiltered if allowed(getattr(r.document, field))]
    assert len(results) >= len(expected)


@pytest.mark.parametrize(
    "filter_",
    [
        'data_source != "docs.python.org"',
        'update_time < "2000-01-01T00:00:00Z"',
        "content_length_bytes < 0",
    ],
)
def test_filters_that_match_nothing(dk_client, filter_):
    assert list(search(dk_client, "statement", page_size=100, filter=filter_)) == []


def test_uri_filter_and_or_precedence(dk_client, yield_name):
    uri = "https://" + yield_name.removeprefix("documents/")
    exact = list(search(dk_client, "statement", page_size=100, filter=f'uri = "{uri}"'))
    assert {r.parent for r in exact} == {yield_name}
    # OR binds tighter than AND: (yield OR nothing) AND python docs.
    combined = (
        f'uri = "{uri}" OR uri = "https://nowhere.example" AND data_source = "docs.python.org"'
    )
    results = list(search(dk_client, "statement", page_size=100, filter=combined))
    assert {r.parent for r in results} == {yield_name}


def test_get_document_views(dk_client, yield_name):
    full = dk_client.get_document(request={"name": yield_name}, **ONCE)
    assert full.view == dk.DocumentView.DOCUMENT_VIEW_CONTENT
    assert 'The "yield" statement' in full.content
    assert full.content_length_bytes == len(full.content.encode("utf-8"))
    assert full.title == 'The "yield" statement'
    assert full.description
    basic = dk_client.get_document(
        request={"name": yield_name, "view": dk.DocumentView.DOCUMENT_VIEW_BASIC}, **ONCE
    )
    assert basic.content == ""
    assert basic.uri == full.uri


def test_batch_get_documents_keeps_order(dk_client, yield_name):
    other = yield_name.replace("simple_stmts.html#yield", "simple_stmts.html#assert")
    response = dk_client.batch_get_documents(request={"names": [other, yield_name]}, **ONCE)
    assert [d.name for d in response.documents] == [other, yield_name]
    assert all(d.content for d in response.documents)


def test_answer_query(dk_client):
    response = dk_client.answer_query(
        request={"query": "What does the yield statement do?"}, **ONCE
    )
    answer = response.answer
    assert "yield" in answer.answer_text
    encoded = answer.answer_text.encode("utf-8")
    assert answer.citations
    for citation in answer.citations:
        text = encoded[citation.start_index : citation.end_index].decode("utf-8")
        for source in citation.sources:
            chunk = answer.references[source.reference_index].document_reference.document_chunk
            assert " ".join(text.split()) in " ".join(chunk.content.split())
            assert chunk.id == ""  # as documented: reference chunks carry no id
            assert chunk.parent.startswith("documents/docs.python.org/")


def test_answer_query_with_nothing_relevant(dk_client):
    response = dk_client.answer_query(request={"query": "quantum chromodynamics lattice"}, **ONCE)
    assert response.answer.answer_text == ""
    assert list(response.answer.citations) == []


def test_other_data_store_behind_the_service(test_corpus_path):
    store = CorpusStore()
    store.ingest("mine", test_corpus_path)
    with EmulatorServer(store, developer_knowledge_data_store="mine") as server:
        client = versioned_client(
            developer_knowledge_v1, "DeveloperKnowledgeClient", server.address
        )
        results = list(search(client, "東京タワー", page_size=3))
        assert results[0].parent == "documents/example.jp/tokyo"
        assert results[0].document.data_source == "example.jp"
        document = client.get_document(request={"name": "documents/example.jp/tokyo"}, **ONCE)
        assert document.content.startswith("# 東京")
        client.transport.close()


async def test_async_client(dk_async_connection, yield_name):
    client = dk_async_connection.async_client(DeveloperKnowledgeAsyncClient)
    pager = await client.search_document_chunks(
        request={"query": "yield statement", "page_size": 10}, **ONCE
    )
    parents = [r.parent async for r in pager]
    assert yield_name in parents
    document = await client.get_document(request={"name": yield_name}, **ONCE)
    assert document.content

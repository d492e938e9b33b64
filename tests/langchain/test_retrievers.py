"""DiscoveryEngineRetriever and DeveloperKnowledgeRetriever against the emulator."""

import json

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ValidationError

from grounding_core import InputError, NotFoundError
from langchain_grounding import DeveloperKnowledgeRetriever, DiscoveryEngineRetriever

PROJECT = "test-project"


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, k=3
    )


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__
    assert BaseRetriever in DeveloperKnowledgeRetriever.__mro__


def test_documents_carry_every_chunk_field(retriever):
    docs = retriever.invoke("lighthouse keeper number 131")
    assert len(docs) == 3
    top = docs[0]
    assert isinstance(top, Document)
    assert top.id == top.metadata["chunk_name"]
    assert top.id.startswith(
        "projects/test-project/locations/global/collections/default_collection/"
        "dataStores/test-docs/branches/default_branch/documents/page-13/chunks/"
    )
    assert "keeper number 131" in top.page_content
    metadata = top.metadata
    assert metadata["source"] == metadata["uri"] == "https://example.com/paging/13"
    assert metadata["title"] == "Paging document 13"
    assert metadata["document_id"] == "page-13"
    assert metadata["struct_data"] == {
        "lang": "en",
        "group": "odd",
        "rank": 13,
        "tags": ["paging", "t3"],
        "meta": {"level": 1},
    }
    assert -1.0 <= metadata["relevance_score"] <= 1.0
    assert metadata["rank_signals"]["keyword_similarity_score"] > 0
    scores = [d.metadata["relevance_score"] for d in docs]
    assert scores == sorted(scores, reverse=True)
    json.dumps(metadata)  # plain JSON values only


def test_k_per_call_and_filter(retriever):
    assert len(retriever.invoke("lighthouse", k=7)) == 7
    odd = retriever.invoke("lighthouse", k=10, filter='group: ANY("odd")')
    assert len(odd) == 10
    assert {d.metadata["struct_data"]["group"] for d in odd} == {"odd"}


def test_more_than_one_page(retriever):
    docs = retriever.invoke("lighthouse", k=130)
    assert len(docs) == 130
    assert len({d.id for d in docs}) == 130


def test_neighbouring_chunks(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        k=1,
        num_previous_chunks=1,
        num_next_chunks=2,
    )
    (doc,) = retriever.invoke("ordinal marker number 3 of six")
    assert "Step 3" in doc.page_content
    assert ["Step 2" in c["content"] for c in doc.metadata["previous_chunks"]] == [True]
    assert ["Step 4" in c["content"] for c in doc.metadata["next_chunks"]] == [True, False]
    assert "Step 5" in doc.metadata["next_chunks"][1]["content"]


def test_engine_target(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, engine_id="test-app", emulator_host=emulator.address, k=2
    )
    docs = retriever.invoke("lighthouse")
    assert len(docs) == 2
    assert "/dataStores/test-docs/" in docs[0].id


def test_non_ascii_content_and_metadata(retriever):
    (doc,) = retriever.invoke("東京都は日本の首都", k=1)
    assert doc.metadata["title"] == "東京について"
    assert "東京都は日本の首都です。" in doc.page_content


def test_documents_mode(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        k=2,
        search_mode="documents",
    )
    docs = retriever.invoke("lighthouse keeper number 72")
    assert docs[0].metadata["document_id"] == "page-07"
    assert docs[0].id == docs[0].metadata["document_name"]
    assert docs[0].page_content


async def test_async_matches_sync(retriever):
    sync = retriever.invoke("lighthouse keeper number 241", k=4)
    asynchronous = await retriever.ainvoke("lighthouse keeper number 241", k=4)
    assert [d.id for d in asynchronous] == [d.id for d in sync]
    assert asynchronous[0].metadata == sync[0].metadata


def test_unknown_data_store_is_a_clear_error(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="nope", emulator_host=emulator.address
    )
    with pytest.raises(NotFoundError, match=r"Search on projects/test-project/.*/dataStores/nope"):
        retriever.invoke("anything")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "no data store and no engine"),
        ({"data_store_id": "d", "engine_id": "e"}, "both a data store"),
        ({"data_store_id": "d", "k": 0}, "greater than or equal to 1"),
        ({"data_store_id": "d", "num_next_chunks": 4}, "less than or equal to 3"),
        ({"data_store_id": "d", "search_mode": "documents", "num_next_chunks": 1}, "chunks"),
        ({"data_store_id": "d", "location": ""}, "location is empty"),
    ],
)
def test_bad_configuration_fails_at_construction(emulator, kwargs, message):
    with pytest.raises(ValidationError, match=message):
        DiscoveryEngineRetriever(project_id=PROJECT, emulator_host=emulator.address, **kwargs)


def test_bad_k_per_call(retriever):
    with pytest.raises(InputError, match="k must be >= 1, got 0"):
        retriever.invoke("lighthouse", k=0)


def test_credentials_never_show(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        credentials="SECRET-MARKER",
        client_options=None,
    )
    assert "SECRET-MARKER" not in repr(retriever)
    assert "SECRET-MARKER" not in json.dumps(retriever.model_dump(mode="json"), default=str)


def test_developer_knowledge_retriever(emulator):
    retriever = DeveloperKnowledgeRetriever(emulator_host=emulator.address, k=3)
    docs = retriever.invoke("How does the for statement iterate?")
    assert len(docs) == 3
    top = docs[0]
    assert top.id.startswith("documents/docs.python.org/")
    assert "/chunks/" in top.id
    assert top.metadata["source"].startswith("https://docs.python.org/")
    assert top.metadata["data_source"] == "docs.python.org"
    assert 0.0 <= top.metadata["relevance_score"] <= 1.0


async def test_developer_knowledge_async_and_filter(emulator):
    retriever = DeveloperKnowledgeRetriever(
        emulator_host=emulator.address, k=2, filter='data_source = "docs.python.org"'
    )
    docs = await retriever.ainvoke("exceptions")
    assert len(docs) == 2
    assert all(d.metadata["data_source"] == "docs.python.org" for d in docs)
    none = await retriever.ainvoke("exceptions", filter='data_source = "nowhere.example"')
    assert none == []


def test_assigned_fields_take_effect(retriever):
    connection = retriever.search.connection
    retriever.k = 2
    retriever.filter = 'group: ANY("even")'
    docs = retriever.invoke("lighthouse")
    assert len(docs) == 2
    assert {d.metadata["struct_data"]["group"] for d in docs} == {"even"}
    assert retriever.search.connection is connection  # no connection field changed
    retriever.timeout = 5.0
    assert retriever.search.connection is not connection
    assert retriever.search.connection.call_options.timeout == 5.0
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        retriever.k = 0


def test_the_retrievers_wrap_the_core_search(retriever, emulator):
    search = retriever.search
    assert search.target == retriever.target
    assert search.target.serving_config_path.endswith(
        "/dataStores/test-docs/servingConfigs/default_search"
    )
    assert (search.spec.k, search.spec.search_mode) == (3, "chunks")
    assert search.connection.call_options.timeout == 30.0
    developer = DeveloperKnowledgeRetriever(emulator_host=emulator.address)
    assert (developer.search.spec.k, developer.search.spec.filter) == (5, "")

"""DiscoveryEngineRetriever and DeveloperKnowledgeRetriever against the emulator."""

import json

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ValidationError

from grounding_core import ConfigurationError, DataStoreSpec, InputError, NotFoundError
from langchain_grounding import DeveloperKnowledgeRetriever, DiscoveryEngineRetriever

from .conftest import core_error

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
        ({"data_store_id": "d", "location": ""}, "location is empty"),
        ({"data_store_id": "d", "timeout": 0}, "timeout must be > 0"),
    ],
)
def test_bad_configuration_fails_at_construction(emulator, kwargs, message):
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(project_id=PROJECT, emulator_host=emulator.address, **kwargs)
    assert isinstance(core_error(info.value), ConfigurationError)
    assert message in str(core_error(info.value))


@pytest.mark.parametrize(
    ("kwargs", "field", "limit"),
    [
        ({"k": 0}, "k", None),
        ({"num_next_chunks": 4}, "num_next_chunks", 3),
        ({"search_mode": "documents", "num_next_chunks": 1}, "chunk_spec", None),
    ],
)
def test_bad_search_values_fail_at_construction(emulator, kwargs, field, limit):
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", emulator_host=emulator.address, **kwargs
        )
    error = core_error(info.value)
    assert (type(error), error.field, error.limit) == (InputError, field, limit)


def test_bad_k_per_call(retriever):
    with pytest.raises(InputError) as info:
        retriever.invoke("lighthouse", k=0)
    assert (info.value.field, info.value.limit) == ("k", None)


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
    search = retriever.search
    for name, value, error in (("k", 0, InputError), ("timeout", 0.0, ConfigurationError)):
        with pytest.raises(ValidationError) as info:
            setattr(retriever, name, value)
        assert isinstance(core_error(info.value), error)
    # A refused value leaves the retriever as it was, working.
    assert (retriever.k, retriever.timeout, retriever.search) == (2, 5.0, search)
    assert len(retriever.invoke("lighthouse")) == 2


def test_the_retrievers_wrap_the_core_search(retriever, emulator):
    search = retriever.search
    assert search.target == retriever.target
    assert search.target.serving_config_path.endswith(
        "/dataStores/test-docs/servingConfigs/default_search"
    )
    assert (search.spec.k, search.spec.search_mode) == (3, "chunks")
    assert search.connection is retriever.connection
    assert search.connection.call_options.timeout == 30.0
    # The names code written for the old core reads: the connection serves the clients now.
    assert retriever.clients is retriever.connection
    assert retriever.call_options is retriever.connection.call_options
    developer = DeveloperKnowledgeRetriever(emulator_host=emulator.address)
    assert (developer.search.spec.k, developer.search.spec.filter) == (5, "")


def test_documents_mode_text_and_extractive_content(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        k=1,
        search_mode="documents",
        max_extractive_answer_count=1,
    )
    [doc] = retriever.invoke("Cape Canaveral rockets launch")
    assert doc.page_content == "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
    derived = doc.metadata["derived_struct_data"]
    assert derived["extractive_answers"] == [{"content": doc.page_content, "pageNumber": ""}]
    assert derived["snippets"][0]["snippet_status"] == "SUCCESS"  # asked for by default
    assert retriever.search.spec.return_snippet is None


class _Events(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, object]] = []

    def on_custom_event(self, name, data, **kwargs) -> None:
        self.events.append((name, data))


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_the_search_response_is_a_custom_event_of_the_run(emulator, asynchronous):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        k=2,
        spell_correction="auto",
        facet_specs=[{"facet_key": {"key": "group"}, "limit": 1}],
    )
    handler = _Events()
    config = {"callbacks": [handler]}
    if asynchronous:
        docs = await retriever.ainvoke("lighthuose", config=config)
    else:
        docs = retriever.invoke("lighthuose", config=config)
    assert len(docs) == 2
    [(name, response)] = handler.events
    assert response.pop("attribution_token")  # a unique token per response
    assert [(name, response)] == [
        (
            "search_response",
            {
                "total_size": 250,
                "corrected_query": "lighthouse",
                "expanded_query": False,
                "pinned_result_count": 0,
                "facets": [
                    {
                        "key": "group",
                        "values": [{"count": 25, "value": "even", "interval": {}}],
                        "dynamic_facet": False,
                    }
                ],
            },
        )
    ]


def test_every_search_option_reaches_the_spec(emulator):
    stores = (DataStoreSpec("test-docs", filter='group: ANY("odd")'),)
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        engine_id="test-app",
        emulator_host=emulator.address,
        search_mode="documents",
        return_snippet=False,
        max_extractive_answer_count=5,
        max_extractive_segment_count=10,
        return_extractive_segment_score=True,
        num_previous_segments=1,
        num_next_segments=2,
        spell_correction="suggestion_only",
        query_expansion="auto",
        pin_unexpanded_results=True,
        language_code="en",
        user_pseudo_id="visitor",
        session="",
        relevance_filter_spec={"keyword_search_threshold": {"relevance_threshold": "LOW"}},
        data_store_specs=stores,
        facet_specs=[{"facet_key": {"key": "group"}}],
    )
    spec = retriever.search.spec
    assert (spec.return_snippet, spec.max_extractive_answer_count) == (False, 5)
    assert (spec.max_extractive_segment_count, spec.return_extractive_segment_score) == (10, True)
    assert (spec.num_previous_segments, spec.num_next_segments) == (1, 2)
    assert (spec.spell_correction, spec.query_expansion, spec.pin_unexpanded_results) == (
        "suggestion_only",
        "auto",
        True,
    )
    assert (spec.language_code, spec.user_pseudo_id) == ("en", "visitor")
    assert spec.relevance_filter_spec == {
        "keyword_search_threshold": {"relevance_threshold": "LOW"}
    }
    assert spec.data_store_specs == stores
    assert spec.facet_specs == ({"facet_key": {"key": "group"}},)
    docs = retriever.invoke("lighthouse")
    assert {d.metadata["struct_data"]["group"] for d in docs} == {"odd"}
    # Every section of a paging document has the word: five segments each, page_content joins them.
    assert [len(d.metadata["derived_struct_data"]["extractive_segments"]) for d in docs] == [5] * 4
    assert docs[0].page_content.count("lighthouse") == 5


@pytest.mark.parametrize(
    ("kwargs", "field", "limit"),
    [
        (
            {"search_mode": "chunks", "max_extractive_answer_count": 1},
            "max_extractive_answer_count",
            None,
        ),
        (
            {"search_mode": "documents", "max_extractive_answer_count": 6},
            "max_extractive_answer_count",
            5,
        ),
        (
            {"search_mode": "documents", "max_extractive_segment_count": 11},
            "max_extractive_segment_count",
            10,
        ),
        ({"search_mode": "documents", "num_next_segments": 1}, "num_next_segments", None),
        ({"pin_unexpanded_results": True}, "pin_unexpanded_results", None),
        ({"user_pseudo_id": "u" * 129}, "user_pseudo_id", 128),
    ],
)
def test_bad_search_options_fail_at_construction(emulator, kwargs, field, limit):
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", emulator_host=emulator.address, **kwargs
        )
    error = core_error(info.value)
    assert (type(error), error.field, error.limit) == (InputError, field, limit)

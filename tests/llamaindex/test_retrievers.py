"""DiscoveryEngineRetriever and DeveloperKnowledgeRetriever against the emulator."""

import json

import llama_index.core.instrumentation as instrument
import pytest
from google.cloud import discoveryengine_v1 as de
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeRelationship, NodeWithScore, ObjectType
from pydantic import Field

from grounding_core import (
    ConfigurationError,
    DataStoreSpec,
    InputError,
    NotFoundError,
    RetryPolicy,
    SourceChunk,
)
from grounding_core.metadata import CHUNK_PROSE_KEYS
from llamaindex_grounding import (
    DeveloperKnowledgeRetriever,
    DiscoveryEngineRetriever,
    SearchResponseEvent,
)
from llamaindex_grounding.nodes import chunk_to_node_with_score

from .conftest import PROJECT

DOCS = (
    "projects/test-project/locations/global/collections/default_collection/"
    "dataStores/test-docs/branches/default_branch/documents"
)


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=3,
    )


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__
    assert BaseRetriever in DeveloperKnowledgeRetriever.__mro__


def test_nodes_carry_every_chunk_field(retriever):
    nodes = retriever.retrieve("lighthouse keeper number 131")
    assert len(nodes) == 3
    top = nodes[0]
    assert isinstance(top, NodeWithScore)
    node = top.node
    assert node.node_id == node.metadata["chunk_name"]
    assert node.node_id.startswith(f"{DOCS}/page-13/chunks/")
    assert "keeper number 131" in node.get_content(metadata_mode=MetadataMode.NONE)
    metadata = node.metadata
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
    assert top.score == metadata["relevance_score"]
    assert -1.0 <= top.score <= 1.0
    assert metadata["rank_signals"]["keyword_similarity_score"] > 0
    scores = [n.score for n in nodes]
    assert scores == sorted(scores, reverse=True)
    json.dumps(metadata)  # plain JSON values only


def test_only_prose_metadata_reaches_the_llm_and_embeddings(retriever):
    node = retriever.retrieve("lighthouse keeper number 131")[0].node
    excluded = set(node.excluded_llm_metadata_keys)
    assert excluded == set(node.excluded_embed_metadata_keys)
    # every non-prose key is excluded; the empty description too
    assert excluded == set(node.metadata) - {"source", "title"}
    assert set(node.metadata) - excluded <= CHUNK_PROSE_KEYS
    text = node.get_content(metadata_mode=MetadataMode.LLM)
    assert text.startswith("source: https://example.com/paging/13\ntitle: Paging document 13\n\n")
    assert "struct_data" not in text
    assert "relevance_score" not in text
    assert node.get_content(metadata_mode=MetadataMode.EMBED) == text


def test_source_relationship_is_the_document(retriever):
    node = retriever.retrieve("lighthouse keeper number 131")[0].node
    source = node.relationships[NodeRelationship.SOURCE]
    assert source.node_id == f"{DOCS}/page-13" == node.metadata["document_name"]
    assert source.node_type == ObjectType.DOCUMENT
    assert source.metadata == {
        "document_id": "page-13",
        "uri": "https://example.com/paging/13",
        "title": "Paging document 13",
    }
    assert node.ref_doc_id == f"{DOCS}/page-13"
    assert NodeRelationship.PREVIOUS not in node.relationships
    assert NodeRelationship.NEXT not in node.relationships


def test_neighbouring_chunks_are_relationships(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=1,
        num_previous_chunks=2,
        num_next_chunks=1,
    )
    (hit,) = retriever.retrieve("ordinal marker number 3 of six")
    node = hit.node
    assert "Step 3" in node.text
    previous = node.metadata["previous_chunks"]
    following = node.metadata["next_chunks"]
    assert ["Step 1" in c["content"] for c in previous] == [True, False]
    assert "Step 2" in previous[1]["content"]
    assert ["Step 4" in c["content"] for c in following] == [True]
    # the nearest neighbours, as LlamaIndex's node-window tools expect
    assert node.prev_node.node_id == previous[1]["name"]
    assert node.next_node.node_id == following[0]["name"]
    assert node.prev_node.node_id.endswith("/documents/sequence/chunks/c2")
    assert node.next_node.node_id.endswith("/documents/sequence/chunks/c4")
    assert "previous_chunks" in node.excluded_llm_metadata_keys
    assert "Step 2" not in node.get_content(metadata_mode=MetadataMode.LLM)


def test_similarity_top_k_can_change_between_queries(retriever):
    retriever.similarity_top_k = 7
    assert len(retriever.retrieve("lighthouse")) == 7
    assert retriever.spec.k == 7
    with pytest.raises(InputError, match="similarity_top_k must be >= 1") as info:
        retriever.similarity_top_k = 0
    assert info.value.field == "similarity_top_k"
    assert retriever.similarity_top_k == 7


def test_filter_and_more_than_one_page(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=110,
        filter='group: ANY("odd")',
    )
    nodes = retriever.retrieve("lighthouse")
    assert len(nodes) == 110
    assert len({n.node.node_id for n in nodes}) == 110
    assert {n.node.metadata["struct_data"]["group"] for n in nodes} == {"odd"}


def test_engine_target(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        engine_id="test-app",
        emulator_host=emulator.address,
        similarity_top_k=2,
    )
    nodes = retriever.retrieve("lighthouse")
    assert len(nodes) == 2
    assert "/dataStores/test-docs/" in nodes[0].node.node_id
    assert retriever.target.engine == "test-app"


def test_non_ascii_content_and_metadata(retriever):
    retriever.similarity_top_k = 1
    (hit,) = retriever.retrieve("東京都は日本の首都")
    assert hit.node.metadata["title"] == "東京について"
    assert "東京都は日本の首都です。" in hit.node.text


def test_documents_mode(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
        search_mode="documents",
    )
    nodes = retriever.retrieve("lighthouse keeper number 72")
    node = nodes[0].node
    # A document's node id is its document id, as llama-index-retrievers-vertexai-search's
    # (#21933); the resource name is its document_name and its SOURCE.
    assert node.node_id == node.metadata["document_id"] == "page-07"
    assert node.metadata["document_name"] == node.ref_doc_id
    assert node.ref_doc_id.endswith("/branches/default_branch/documents/page-07")
    assert node.text


async def test_async_matches_sync(retriever):
    sync = retriever.retrieve("lighthouse keeper number 241")
    asynchronous = await retriever.aretrieve("lighthouse keeper number 241")
    assert [n.node.node_id for n in asynchronous] == [n.node.node_id for n in sync]
    assert [n.score for n in asynchronous] == [n.score for n in sync]
    assert asynchronous[0].node.metadata == sync[0].node.metadata
    assert asynchronous[0].node.relationships == sync[0].node.relationships


async def test_async_retrieve_uses_the_async_client(retriever, monkeypatch):
    # A thread wrapper would call the sync search: make that fail loudly.
    def no_sync_search(*args, **kwargs):
        raise AssertionError("the sync client was used by aretrieve")

    sync_client = retriever.search.connection.client(de.SearchServiceClient)
    monkeypatch.setattr(sync_client, "search", no_sync_search)
    nodes = await retriever.aretrieve("lighthouse keeper number 241")
    assert nodes[0].node.metadata["document_id"] == "page-24"


def test_unknown_data_store_is_a_clear_error(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="nope", emulator_host=emulator.address
    )
    with pytest.raises(NotFoundError, match=r"Search on projects/test-project/.*/dataStores/nope"):
        retriever.retrieve("anything")


def test_empty_query_is_refused(retriever):
    with pytest.raises(InputError, match="query is empty") as info:
        retriever.retrieve("  ")
    assert info.value.field == "query"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({}, ConfigurationError, "no data store and no engine"),
        ({"data_store_id": "d", "engine_id": "e"}, ConfigurationError, "both a data store"),
        (
            {"data_store_id": "d", "similarity_top_k": 0},
            InputError,
            "similarity_top_k must be >= 1",
        ),
        ({"data_store_id": "d", "num_next_chunks": 4}, InputError, "between 0 and 3, got 4"),
        (
            {"data_store_id": "d", "search_mode": "documents", "num_next_chunks": 1},
            InputError,
            "need search_mode='chunks'",
        ),
        ({"data_store_id": "d", "search_mode": "pages"}, InputError, "search_mode must be"),
        ({"data_store_id": "d", "relevance_threshold": "huge"}, InputError, "relevance_threshold"),
        ({"data_store_id": "d", "boost_spec": "up"}, InputError, "boost_spec must be a dict"),
        ({"data_store_id": "d", "location": ""}, ConfigurationError, "location is empty"),
        ({"data_store_id": "d", "timeout": 0}, ConfigurationError, "timeout must be > 0"),
        ({"data_store_id": "d", "retry": 3}, ConfigurationError, "retry must be a RetryPolicy"),
        (
            {"data_store_id": "d", "client_options": {"api_endpoint": "x:1"}},
            ConfigurationError,
            "both an emulator",
        ),
    ],
)
def test_bad_configuration_fails_at_construction(emulator, kwargs, error, message):
    with pytest.raises(error, match=message):
        DiscoveryEngineRetriever(project_id=PROJECT, emulator_host=emulator.address, **kwargs)


def test_credentials_never_show(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        credentials="SECRET-MARKER",
        client_options={"quota_project_id": "SECRET-QUOTA"},
        retry=RetryPolicy(initial=0.01),
    )
    shown = repr(retriever) + str(retriever)
    assert "test-docs" in shown
    assert "SECRET" not in shown
    dumped = json.dumps(vars(retriever), default=repr)
    assert "SECRET" not in dumped


def test_emulator_from_the_environment(emulator, monkeypatch):
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", emulator.address)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", PROJECT)
    retriever = DiscoveryEngineRetriever(data_store_id="test-docs", similarity_top_k=1)
    assert retriever.target.project == PROJECT
    (hit,) = retriever.retrieve("lighthouse keeper number 131")
    assert hit.node.metadata["document_id"] == "page-13"


def test_developer_knowledge_retriever(emulator):
    retriever = DeveloperKnowledgeRetriever(emulator_host=emulator.address, similarity_top_k=3)
    nodes = retriever.retrieve("How does the for statement iterate?")
    assert len(nodes) == 3
    node = nodes[0].node
    assert node.node_id.startswith("documents/docs.python.org/")
    assert "/chunks/" in node.node_id
    assert node.metadata["source"].startswith("https://docs.python.org/")
    assert node.metadata["data_source"] == "docs.python.org"
    assert node.ref_doc_id == node.node_id.split("/chunks/")[0]
    assert 0.0 <= nodes[0].score <= 1.0
    assert "data_source" in node.excluded_llm_metadata_keys


async def test_developer_knowledge_async_and_filter(emulator):
    retriever = DeveloperKnowledgeRetriever(
        emulator_host=emulator.address,
        similarity_top_k=2,
        filter='data_source = "docs.python.org"',
    )
    nodes = await retriever.aretrieve("exceptions")
    assert len(nodes) == 2
    assert all(n.node.metadata["data_source"] == "docs.python.org" for n in nodes)
    sync = retriever.retrieve("exceptions")
    assert [n.node.node_id for n in sync] == [n.node.node_id for n in nodes]
    nowhere = DeveloperKnowledgeRetriever(
        emulator_host=emulator.address, filter='data_source = "nowhere.example"'
    )
    assert await nowhere.aretrieve("exceptions") == []


@pytest.mark.parametrize(
    ("kwargs", "error", "field", "limit"),
    [
        ({"similarity_top_k": 0}, InputError, "similarity_top_k", None),
        ({"filter": "x" * 501}, InputError, "filter", 500),
        ({"timeout": -1}, ConfigurationError, None, None),
    ],
)
def test_developer_knowledge_bad_configuration(emulator, kwargs, error, field, limit):
    with pytest.raises(error, match=next(iter(kwargs))) as info:
        DeveloperKnowledgeRetriever(emulator_host=emulator.address, **kwargs)
    if error is InputError:
        assert (info.value.field, info.value.limit) == (field, limit)


class _SearchResponses(BaseEventHandler):
    """Collects the retrievers' ``SearchResponseEvent``s."""

    events: list = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "SearchResponses"

    def handle(self, event, **kwargs) -> None:
        if isinstance(event, SearchResponseEvent):
            self.events.append(event)


@pytest.fixture
def search_responses():
    handler = _SearchResponses(events=[])
    root = instrument.get_dispatcher()
    root.add_event_handler(handler)
    yield handler.events
    root.event_handlers.remove(handler)


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
async def test_the_search_response_is_an_instrumentation_event(
    emulator, search_responses, asynchronous
):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
        facet_specs=[{"facet_key": {"key": "group", "order_by": "value desc"}, "limit": 1}],
    )
    nodes = (
        await retriever.aretrieve("lighthuose")
        if asynchronous
        else retriever.retrieve("lighthuose")
    )
    assert len(nodes) == 2
    [event] = search_responses
    assert event.query == "lighthuose"
    response = dict(event.search_response)
    assert response.pop("attribution_token")  # a unique token per response
    assert response == {
        "total_size": 250,
        "corrected_query": "lighthouse",
        "expanded_query": False,
        "pinned_result_count": 0,
        "facets": [
            {
                "key": "group",
                "values": [{"count": 25, "value": "odd", "interval": {}}],
                "dynamic_facet": False,
            }
        ],
    }


def test_documents_mode_extractive_segments_are_the_text(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=1,
        search_mode="documents",
        max_extractive_segment_count=1,
        num_next_segments=1,
        filter='group: ANY("sequence")',
    )
    [hit] = retriever.retrieve("ordinal 4")
    [segment] = hit.node.metadata["derived_struct_data"]["extractive_segments"]
    assert (
        hit.node.text
        == segment["content"]
        == ("Step 4\n\nStep 4 of the sequence: ordinal marker number 4 of six.")
    )
    assert [s["content"].split("\n")[0] for s in segment["next_segments"]] == ["Step 5"]
    assert "relevanceScore" not in segment
    spec = retriever.spec
    assert (spec.max_extractive_segment_count, spec.num_next_segments) == (1, 1)


def test_every_search_option_reaches_the_spec(emulator):
    stores = [DataStoreSpec("test-docs", filter='group: ANY("even")')]
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        engine_id="test-app",
        emulator_host=emulator.address,
        search_mode="documents",
        return_snippet=True,
        max_extractive_answer_count=2,
        max_extractive_segment_count=3,
        return_extractive_segment_score=True,
        num_previous_segments=2,
        num_next_segments=1,
        spell_correction="auto",
        query_expansion="disabled",
        language_code="en-GB",
        user_pseudo_id="visitor",
        session="s",
        relevance_filter_spec={"semantic_search_threshold": {"semantic_relevance_threshold": 0.2}},
        data_store_specs=stores,
        facet_specs=[{"facet_key": {"key": "lang"}}],
    )
    spec = retriever.spec
    assert (spec.return_snippet, spec.max_extractive_answer_count) == (True, 2)
    assert (spec.max_extractive_segment_count, spec.return_extractive_segment_score) == (3, True)
    assert (spec.num_previous_segments, spec.num_next_segments) == (2, 1)
    assert (spec.spell_correction, spec.query_expansion, spec.pin_unexpanded_results) == (
        "auto",
        "disabled",
        False,
    )
    assert (spec.language_code, spec.user_pseudo_id, spec.session) == ("en-GB", "visitor", "s")
    assert spec.relevance_filter_spec == {
        "semantic_search_threshold": {"semantic_relevance_threshold": 0.2}
    }
    assert spec.data_store_specs == tuple(stores)
    assert spec.facet_specs == ({"facet_key": {"key": "lang"}},)
    # (return_extractive_segment_score alone is the LlamaIndex peer's: it brings its defaults,
    # tests/llamaindex/test_peer_arguments.py.)
    with pytest.raises(InputError, match="need search_mode='documents'") as info:
        DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            num_previous_segments=1,
        )
    assert info.value.field == "num_previous_segments"


def test_a_negative_relevance_score_is_the_node_score():
    # Chunk.relevance_score is documented in [-1, 1] (the emulator's is in [0, 1]).
    hit = chunk_to_node_with_score(SourceChunk(name="c", content="x", relevance_score=-0.25))
    assert hit.score == -0.25
    assert hit.node.metadata["relevance_score"] == -0.25

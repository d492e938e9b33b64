"""llama-index-retrievers-vertexai-search's argument names on our LlamaIndex retriever (and
the connection names on every Discovery Engine component), on the emulator."""

from __future__ import annotations

import json
import warnings

import pytest
from google.cloud import discoveryengine_v1 as de
from llama_index.core.retrievers import BaseRetriever

from grounding_core import (
    DISCOVERYENGINE_EMULATOR_HOST,
    ChunkSearchSpec,
    ConfigurationError,
    InputError,
)
from grounding_core.search.discovery_engine import search_request
from llamaindex_grounding import (
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineRetriever,
    GroundingEvaluator,
)
from tests.core.peer_inputs import (
    SPELL,
    STRUCTURED,
    STRUCTURED_DOCUMENTS,
    add_structured_data_store,
    service_account_file,
)

PROJECT = "test-project"
QUERY = "lighthouse keeper"


def test_class():
    assert BaseRetriever in DiscoveryEngineRetriever.__mro__


def retriever(emulator, **arguments):
    with pytest.warns(DeprecationWarning, match="^DiscoveryEngineRetriever got ") as record:
        built = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address,
            **arguments,
        )  # fmt: skip
    assert len(record) == 1
    assert record[0].filename == __file__
    return built, str(record[0].message)


def test_the_issues_probe(emulator):
    built, message = retriever(emulator, location_id="eu", max_documents=10)
    assert message.startswith(
        "DiscoveryEngineRetriever got llama-index-retrievers-vertexai-search's names: "
        "VertexAISearchRetriever's `location_id='eu'` is `location='eu'` here; "
    )
    assert "VertexAISearchRetriever's `max_documents=10` is `similarity_top_k=10` here" in message
    assert "spell_correction='suggestion_only'" in message
    assert built.similarity_top_k == 10
    assert built.target.location == "eu"
    spec = built.spec
    assert (spec.search_mode, spec.document_text, spec.max_extractive_segment_count) == (
        "documents",
        "extractive_segments",
        1,
    )
    assert (spec.return_extractive_segment_score, spec.spell_correction, spec.query_expansion) == (
        True,
        "suggestion_only",
        "disabled",
    )
    request = search_request(built.target, QUERY, spec)
    assert request.spell_correction_spec.mode == SPELL.SUGGESTION_ONLY
    assert request.content_search_spec.extractive_content_spec.return_extractive_segment_score
    nodes = built.retrieve(QUERY)
    assert len(nodes) == 10
    for node in nodes:
        assert node.node.ref_doc_id.startswith("projects/test-project/locations/eu/")
        assert node.node.node_id == node.node.metadata["document_id"]
        segments = node.node.metadata["derived_struct_data"]["extractive_segments"]
        assert [s["content"] for s in segments] == [node.node.text]
        assert "relevanceScore" in segments[0]
    assert built.retrieve("lighthuose") == []  # the peer's spell correction: suggestion only


def test_the_peers_documents_options_alone_bring_its_defaults(emulator):
    # Issue 38's probe, in the LlamaIndex peer's names (its attributes, given here).
    with pytest.warns(DeprecationWarning, match="without search_mode") as record:
        built = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address,
            max_extractive_segment_count=1, return_extractive_segment_score=True,
        )  # fmt: skip
    assert record[0].filename == __file__
    spec = built.spec
    assert (spec.search_mode, spec.document_text, built.similarity_top_k) == (
        "documents",
        "extractive_segments",
        5,
    )
    nodes = built.retrieve(QUERY)
    assert [n.node.node_id for n in nodes] == [n.node.metadata["id"] for n in nodes]


def test_structured_results_keep_the_document_identity_and_struct_data(emulator):
    # llama_index #21933's test, through the search: the node id and metadata["id"] are the
    # document id, the struct data keys are metadata keys, the text is the struct data's JSON.
    add_structured_data_store(emulator.address, PROJECT)
    with pytest.warns(DeprecationWarning, match="`engine_data_type=1`"):
        built = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id=STRUCTURED, location_id="global",
            engine_data_type=1, emulator_host=emulator.address,
        )  # fmt: skip
    (hit,) = built.retrieve("RUN")
    node = hit.node
    assert node.id_ == node.metadata["id"] == "li-meta-gamma"
    assert (node.metadata["case_id"], node.metadata["title"]) == ("RUN", "Gamma")
    assert node.metadata["document_name"].endswith("/documents/li-meta-gamma")
    assert json.loads(node.text) == STRUCTURED_DOCUMENTS["li-meta-gamma"]


def test_without_peer_names_nothing_changes(emulator):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
        )
    assert ours.spec == ChunkSearchSpec(k=4)
    assert len(ours.retrieve(QUERY)) == 4


def test_structured_data_and_the_user_agent(emulator):
    built, message = retriever(emulator, engine_data_type=1, user_agent="my-app/1.0")
    assert "`user_agent='my-app/1.0'` is ignored here" in message
    assert (built.spec.document_text, built.similarity_top_k) == ("struct_json", 5)
    node = built.retrieve("sequence ordinal marker")[0]
    assert json.loads(node.node.text) == {"lang": "en", "group": "sequence"}  # the peer's JSON


def test_credentials_path(emulator, tmp_path, monkeypatch):
    path = service_account_file(tmp_path / "key.json")
    built, message = retriever(emulator, credentials_path=str(path), similarity_top_k=2)
    assert "defaults" not in message  # not the retriever peer's name: no search defaults
    assert "`credentials=<Credentials>` here (loaded with google.oauth2" in message
    assert len(built.retrieve(QUERY)) == 2
    # On Google Cloud the key file's account is the client's: no default credentials needed.
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    arguments = {"project_id": PROJECT, "data_store_id": "d"}
    with pytest.warns(DeprecationWarning, match="`credentials_path="):
        keyed = DiscoveryEngineRetriever(credentials_path=str(path), **arguments)
    client = keyed.search.connection.client(de.SearchServiceClient)
    assert isinstance(client, de.SearchServiceClient)
    unkeyed = DiscoveryEngineRetriever(**arguments).search.connection
    with pytest.raises(ConfigurationError, match="no Google Cloud credentials"):
        unkeyed.client(de.SearchServiceClient)


def test_errors():
    with pytest.raises(TypeError, match=r"both `max_documents` .* and `similarity_top_k`"):
        DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="d", max_documents=3, similarity_top_k=2
        )
    with pytest.raises(InputError, match=r"engine_data_type must be one of 0 .*, got 7") as info:
        DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", engine_data_type=7)
    assert (info.value.field, info.value.limit) == ("engine_data_type", [0, 1, 2])
    # The LlamaIndex peer takes it as an attribute only; the constructor takes it here too,
    # meaning the same (tests/llamaindex/test_option_attributes.py).
    with pytest.raises(InputError, match="get_extractive_answers must be True or False"):
        DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", get_extractive_answers=1)


@pytest.fixture
def peer_environment(monkeypatch):
    """The peer's variables set, ours unset."""
    for name in ("GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "GROUNDING_DATA_STORE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PROJECT_ID", PROJECT)
    monkeypatch.setenv("DATA_STORE_ID", "test-docs")
    return monkeypatch


def test_the_peers_variables_are_read_where_ours_are_unset(emulator, peer_environment):
    with pytest.warns(DeprecationWarning, match=r"read \$(PROJECT|DATA_STORE)_ID") as record:
        built = DiscoveryEngineRetriever(emulator_host=emulator.address, similarity_top_k=2)
    assert [str(w.message).partition(",")[0] for w in record] == [
        "DiscoveryEngineRetriever read $PROJECT_ID",
        "DiscoveryEngineRetriever read $DATA_STORE_ID",
    ]
    assert [w.filename for w in record] == [__file__] * 2
    assert built.target.serving_config_path.startswith(
        f"projects/{PROJECT}/locations/global/collections/default_collection/dataStores/test-docs/"
    )
    assert len(built.retrieve(QUERY)) == 2
    with pytest.warns(DeprecationWarning, match=r"^GroundingEvaluator read \$PROJECT_ID"):
        evaluator = GroundingEvaluator(emulator_host=emulator.address)
    assert f"'projects/{PROJECT}/locations/global/groundingConfigs/" in repr(evaluator)


def test_our_variables_and_arguments_win_over_the_peers(emulator, peer_environment):
    peer_environment.setenv("GOOGLE_CLOUD_PROJECT", "ours")
    peer_environment.setenv("GROUNDING_DATA_STORE", "our-store")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_ours = DiscoveryEngineRetriever(emulator_host=emulator.address)
        given = DiscoveryEngineAnswerQueryEngine(
            project_id="p", engine_id="e", emulator_host=emulator.address
        )
    assert from_ours.target.serving_config_path.startswith(
        "projects/ours/locations/global/collections/default_collection/dataStores/our-store/"
    )
    assert (given.target.project, given.target.data_store, given.target.engine) == ("p", None, "e")


def test_every_discovery_engine_component_takes_the_connection_names(emulator, tmp_path):
    path = service_account_file(tmp_path / "key.json")
    with pytest.warns(
        DeprecationWarning, match="^GroundingEvaluator got langchain-google-"
    ) as record:
        evaluator = GroundingEvaluator(
            project_id=PROJECT,
            location_id="eu",
            credentials_path=str(path),
            emulator_host=emulator.address,
        )
    assert record[0].filename == __file__
    assert "`credentials=<Credentials>` here" in str(record[0].message)
    assert "/locations/eu/groundingConfigs/" in repr(evaluator)
    fact = "Paris is the capital of France."
    assert evaluator.evaluate(response=fact, contexts=[fact]).passing
    with pytest.warns(DeprecationWarning, match="`location_id='us'` is `location='us'` here"):
        engine = DiscoveryEngineAnswerQueryEngine(
            project_id=PROJECT,
            location_id="us",
            data_store_id="test-docs",
            emulator_host=emulator.address,
        )
    assert engine.target.location == "us"

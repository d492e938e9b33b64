"""langchain-google-community's argument names on our LangChain components, on the emulator:
each warns (DeprecationWarning, pointing at the caller's line) and means what it meant to the
peer; the peer's defaults apply only when a peer name is given."""

from __future__ import annotations

import json
import warnings

import pytest
from google.oauth2 import service_account
from langchain_core.documents import Document
from pydantic import ValidationError

from grounding_core import ChunkSearchSpec, DiscoveryEngineChunkSearch
from grounding_core.search.discovery_engine import search_request
from langchain_grounding import (
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    DiscoveryEngineSummary,
    GroundingChecker,
)
from tests.core.peer_inputs import EMAIL, SPELL, service_account_file

PROJECT = "test-project"
QUERY = "lighthouse keeper"


def retriever(emulator, **arguments):
    """A retriever of the test data store, built with ``arguments`` (expected to warn)."""
    with pytest.warns(DeprecationWarning, match="^DiscoveryEngineRetriever got ") as record:
        built = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address,
            **arguments,
        )  # fmt: skip
    assert len(record) == 1
    assert record[0].filename == __file__  # the warning points at the caller's line
    return built, str(record[0].message)


def sent(search: DiscoveryEngineChunkSearch):
    """The request the retriever sends for ``QUERY``."""
    return search_request(search.target, QUERY, search.spec)


def test_the_issues_probe(emulator):
    # DiscoveryEngineRetriever(project_id=..., location_id="eu", data_store_id=...,
    # max_documents=10): location eu, 10 documents, in documents mode.
    built, message = retriever(emulator, location_id="eu", max_documents=10)
    assert (built.location, built.k, built.search_mode) == ("eu", 10, "documents")
    assert "`location_id='eu'` is `location='eu'` here" in message
    assert "`max_documents=10` is `k=10` here" in message
    assert "search_mode='documents'" in message
    documents = built.invoke(QUERY)
    assert len(documents) == 10
    for document in documents:
        assert document.id.startswith("projects/test-project/locations/eu/")
        segments = document.metadata["derived_struct_data"]["extractive_segments"]
        assert [s["content"] for s in segments] == [document.page_content]
        assert "lighthouse" in document.page_content
    request = sent(built.search)
    assert request.page_size == 10
    assert request.content_search_spec.extractive_content_spec.num_previous_segments == 1


def test_without_peer_names_nothing_changes(emulator):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address
        )
    assert (ours.location, ours.k, ours.search_mode) == ("global", 4, "chunks")
    assert ours.search.spec == ChunkSearchSpec(k=4)
    assert len(ours.invoke(QUERY)) == 4


def test_extractive_answers(emulator):
    built, message = retriever(emulator, get_extractive_answers=True)
    assert "`get_extractive_answers=True` is `document_text='extractive_answers'` here" in message
    assert (built.document_text, built.max_extractive_answer_count, built.k) == (
        "extractive_answers",
        1,
        5,
    )
    extractive = sent(built.search).content_search_spec.extractive_content_spec
    assert (extractive.max_extractive_answer_count, extractive.max_extractive_segment_count) == (
        1,
        0,
    )
    documents = built.invoke(QUERY)
    assert len(documents) == 5
    for document in documents:
        answers = document.metadata["derived_struct_data"]["extractive_answers"]
        assert [a["content"] for a in answers] == [document.page_content]


def test_structured_data(emulator):
    built, _ = retriever(emulator, engine_data_type=1)
    assert (built.search_mode, built.document_text, built.return_snippet) == (
        "documents",
        "struct_json",
        False,
    )
    request = sent(built.search)
    assert "extractive_content_spec" not in request.content_search_spec
    assert not request.content_search_spec.snippet_spec.return_snippet
    document = built.invoke("sequence ordinal marker")[0]
    assert document.metadata["struct_data"] == {"lang": "en", "group": "sequence"}
    # The peer's text: the struct data as JSON; its metadata: the id and the struct keys.
    assert json.loads(document.page_content) == {"lang": "en", "group": "sequence"}
    assert (document.metadata["id"], document.metadata["group"]) == ("sequence", "sequence")


def test_website_data(emulator):
    built, _ = retriever(emulator, engine_data_type=2)
    request = sent(built.search)
    assert request.content_search_spec.snippet_spec.return_snippet
    assert request.content_search_spec.extractive_content_spec.max_extractive_answer_count == 1
    documents = built.invoke(QUERY)
    snippets = documents[0].metadata["derived_struct_data"]["snippets"]
    # The text is the snippet without its hit highlighting.
    assert "<b>" in snippets[0]["snippet"]
    assert documents[0].page_content == snippets[0]["snippet"].replace("<b>", "").replace(
        "</b>", ""
    )


def test_spell_correction_and_query_expansion(emulator):
    built, message = retriever(emulator, spell_correction_mode=1, query_expansion_condition=2)
    assert (built.spell_correction, built.query_expansion) == ("suggestion_only", "auto")
    assert sent(built.search).spell_correction_spec.mode == SPELL.SUGGESTION_ONLY
    assert "`spell_correction_mode=1` is `spell_correction='suggestion_only'` here" in message
    assert built.invoke("lighthuose") == []  # suggestion only: the misspelt query is searched
    corrected, _ = retriever(emulator, spell_correction_mode=2)
    assert len(corrected.invoke("lighthuose")) == 5  # auto: the corrected query is searched


def test_our_names_win(emulator):
    built, message = retriever(emulator, location_id="us", k=2, search_mode="chunks")
    assert (built.location, built.k, built.search_mode, built.document_text) == (
        "us",
        2,
        "chunks",
        "auto",
    )
    assert "k=5" not in message
    documents = built.invoke(QUERY)
    assert len(documents) == 2
    assert "/chunks/" in documents[0].id


def test_clashes_and_names_without_equivalent_are_errors():
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", max_documents=3, k=2)
    assert "got both `max_documents` (langchain-google-community's name for `k`) and `k`" in (
        str(info.value)
    )
    with pytest.raises(ValidationError) as info:
        DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", custom_embedding_ratio=0.3)
    assert "`custom_embedding_ratio` has no equivalent here: custom embeddings need v1beta" in (
        str(info.value)
    )
    # A peer's name that is not one of the retriever's is still an unknown argument.
    with pytest.raises(ValidationError, match="unknown argument 'conversation_id'"):
        DiscoveryEngineRetriever(project_id=PROJECT, data_store_id="d", conversation_id="-")


def test_the_checker_takes_the_wrappers_names(emulator, tmp_path):
    path = service_account_file(tmp_path / "key.json")
    with pytest.warns(DeprecationWarning, match="VertexAICheckGroundingWrapper's") as record:
        checker = GroundingChecker(
            project_id=PROJECT,
            location_id="eu",
            credentials_path=str(path),
            emulator_host=emulator.address,
        )
    assert record[0].filename == __file__
    assert checker.location == "eu"
    assert isinstance(checker.credentials, service_account.Credentials)
    assert checker.credentials.service_account_email == EMAIL
    assert checker.connection.grounding_config_path().startswith(
        "projects/test-project/locations/eu/"
    )
    out = checker.invoke(
        {
            "answer": "Step 1 of the sequence is ordinal marker number 1.",
            "documents": [Document("Step 1 of the sequence: ordinal marker number 1 of six.")],
        }
    )
    assert out["grounding"].support_score is not None
    with pytest.raises(ValidationError, match=r"client must be a Google client with a check_gro"):
        GroundingChecker(project_id=PROJECT, client=object())


def test_the_checker_takes_the_wrappers_nones(emulator):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checker = GroundingChecker(
            project_id=PROJECT, emulator_host=emulator.address, citation_threshold=None, client=None
        )
    assert (checker.citation_threshold, checker.spec.citation_threshold) == (0.6, 0.6)
    assert checker.client is None


# -- peer code in the names both packages share (issue #38) --------------------------------------

SEGMENT_SCORES = {"max_extractive_segment_count": 1, "return_extractive_segment_score": True}


def test_the_peers_segment_options_alone_search_as_the_peer_did(emulator):
    with pytest.warns(DeprecationWarning, match="without search_mode") as record:
        built = DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            **SEGMENT_SCORES,
        )
    assert record[0].filename == __file__
    assert (built.search_mode, built.k, built.document_text) == (
        "documents",
        5,
        "extractive_segments",
    )
    request = sent(built.search)
    extractive = request.content_search_spec.extractive_content_spec
    assert (extractive.num_previous_segments, extractive.num_next_segments) == (1, 1)
    assert extractive.return_extractive_segment_score
    documents = built.invoke(QUERY)
    assert documents
    for document in documents:
        (segment,) = document.metadata["derived_struct_data"]["extractive_segments"]
        assert document.page_content == segment["content"]
        # What the peer's integration test reads.
        assert document.metadata["id"] == document.metadata["document_id"]
        assert document.metadata["source"]
        assert document.metadata["relevance_score"] == segment["relevanceScore"]
        assert "previous_segments" in document.metadata
        assert "next_segments" in document.metadata


@pytest.mark.parametrize(
    ("given", "text"),
    [
        ({"max_extractive_answer_count": 3}, "extractive_segments"),
        ({"num_previous_segments": 2}, "extractive_segments"),
        ({"return_snippet": True}, "extractive_segments"),
        ({"get_extractive_answers": True, "return_extractive_segment_score": True}, None),
    ],
    ids=["answer-count", "previous-segments", "snippets", "answers-and-segment-scores"],
)
def test_peer_code_of_shared_names_builds_and_searches(emulator, given, text):
    with pytest.warns(DeprecationWarning, match="the options not given take its defaults"):
        built = DiscoveryEngineRetriever(
            project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, **given
        )
    for name, value in given.items():
        if name != "get_extractive_answers":
            assert getattr(built, name) == value
    assert built.document_text == (text or "extractive_answers")
    documents = built.invoke(QUERY)
    assert documents
    assert all(d.page_content for d in documents)


def test_the_peers_nones_and_defaults_are_accepted(emulator):
    with pytest.warns(DeprecationWarning, match="langchain-google-community's names") as record:
        built = DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            filter=None,
            order_by=None,
            canonical_filter=None,
            boost_spec=None,
            custom_embedding=None,
            custom_embedding_field_path=None,
            custom_embedding_ratio=0.0,
        )
    (warning,) = record
    for name in ("custom_embedding=None", "custom_embedding_ratio=0.0"):
        assert f"`{name}` is the peer's default, and changes nothing here" in str(warning.message)
    assert (built.filter, built.order_by, built.canonical_filter, built.boost_spec) == (
        "",
        "",
        "",
        None,
    )
    assert built.invoke(QUERY)


def test_a_real_custom_embedding_says_what_to_use_instead(emulator):
    with pytest.raises(ValidationError, match="drop it \\(the search ranks by relevance\\)"):
        DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            custom_embedding=object(),
            custom_embedding_field_path="embedding",
            custom_embedding_ratio=0.5,
        )


def test_the_summary_takes_the_tools_names(emulator):
    with pytest.warns(DeprecationWarning, match="VertexAISearchSummaryTool's") as record:
        summarizer = DiscoveryEngineSummary(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=emulator.address,
            summary_prompt="Answer briefly.",
            summary_include_citations=False,
            summary_spec_kwargs={"ignore_adversarial_query": True},
        )
    message = str(record[0].message)
    assert "the options not given take its defaults: result_count=3" in message
    spec = summarizer.answering.spec
    assert (spec.preamble, spec.include_citations, spec.result_count) == (
        "Answer briefly.",
        False,
        3,
    )
    assert spec.ignore_adversarial_query is True
    out = summarizer.invoke("東京 首都")
    assert out["answer"]
    assert out["citations"] == []  # include_citations=False


def test_every_discovery_engine_component_takes_location_id(emulator):
    with pytest.warns(DeprecationWarning, match="`location_id='eu'` is `location='eu'` here"):
        answer = DiscoveryEngineAnswer(
            project_id=PROJECT,
            location_id="eu",
            data_store_id="test-docs",
            emulator_host=emulator.address,
        )
    assert answer.location == "eu"
    assert answer.target.location == "eu"


def test_a_peer_name_is_for_the_constructor_only(emulator):
    built, _ = retriever(emulator, max_documents=3)
    built.k = 2  # our names are assigned as before
    assert built.search.spec.k == 2
    with pytest.raises(ValidationError, match=r"unknown argument 'max_documents' \(did you mean"):
        built.max_documents = 2
    assert built.k == 2


def test_location_id_reads_and_sets_the_location(emulator):
    built, _ = retriever(emulator, max_documents=3)
    assert built.location_id == built.location == "global"
    built.location_id = "us"
    assert (built.location, built.target.location) == ("us", "us")
    with pytest.raises(ValidationError, match="location"):
        built.location_id = "mars"
    assert built.location_id == "us"


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
        built = DiscoveryEngineRetriever(emulator_host=emulator.address, k=2)
    assert [str(w.message).partition(",")[0] for w in record] == [
        "DiscoveryEngineRetriever read $PROJECT_ID",
        "DiscoveryEngineRetriever read $DATA_STORE_ID",
    ]
    assert [w.filename for w in record] == [__file__] * 2
    assert (built.project_id, built.data_store_id) == (PROJECT, "test-docs")
    assert built.target.serving_config_path.startswith(
        "projects/test-project/locations/global/collections/default_collection/dataStores/"
        "test-docs/"
    )
    assert len(built.invoke(QUERY)) == 2
    with pytest.warns(DeprecationWarning, match=r"read \$PROJECT_ID"):
        checker = GroundingChecker(emulator_host=emulator.address)
    assert checker.grounding_check.grounding_config.startswith("projects/test-project/")


def test_our_variables_and_arguments_win_over_the_peers(emulator, peer_environment):
    peer_environment.setenv("GOOGLE_CLOUD_PROJECT", "ours")
    peer_environment.setenv("GROUNDING_DATA_STORE", "our-store")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from_ours = DiscoveryEngineRetriever(emulator_host=emulator.address)
        given = DiscoveryEngineRetriever(project_id="p", engine_id="e", emulator_host="h:1")
    assert from_ours.target.serving_config_path.startswith(
        "projects/ours/locations/global/collections/default_collection/dataStores/our-store/"
    )
    assert (given.project_id, given.data_store_id, given.engine_id) == ("p", None, "e")

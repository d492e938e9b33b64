"""ConversationalSearchService/AnswerQuery through Google's clients (sync and async)."""

from __future__ import annotations

from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from tests.emulator.conftest import ONCE, serving_config, versioned_client

NO_RELEVANT_CONTENT = de.Answer.AnswerSkippedReason.NO_RELEVANT_CONTENT


def ask(client, query, *, parent="python-docs-app", kind="engines", **fields):
    fields.setdefault("answer_generation_spec", {"include_citations": True})
    request = de.AnswerQueryRequest(
        serving_config=serving_config(parent, kind=kind),
        query={"text": query},
        **fields,
    )
    return client.answer_query(request=request, **ONCE).answer


def check_citations(answer) -> None:
    """Every citation's byte span slices the UTF-8 answer; its sources name references."""
    encoded = answer.answer_text.encode("utf-8")
    for citation in answer.citations:
        text = encoded[citation.start_index : citation.end_index].decode("utf-8")
        assert text
        assert text.strip() == text
        for source in citation.sources:
            reference = answer.references[int(source.reference_id)]
            assert " ".join(text.split()) in " ".join(reference.chunk_info.content.split())


def test_answer_with_citations_and_references(answer_client):
    answer = ask(answer_client, "What does the yield statement do?")
    assert answer.state == de.Answer.State.SUCCEEDED
    assert "yield" in answer.answer_text
    assert answer.citations
    check_citations(answer)
    reference = answer.references[0].chunk_info
    assert "/dataStores/python-docs/branches/default_branch/documents/" in reference.chunk
    assert reference.document_metadata.uri.startswith("https://docs.python.org/3")
    assert reference.document_metadata.document == reference.chunk.rsplit("/chunks/", 1)[0]
    assert reference.document_metadata.struct_data["section"] in ("reference", "library")
    assert 0 < reference.relevance_score <= 1
    assert 0 <= answer.grounding_score <= 1
    assert answer.name.startswith(
        "projects/test-project/locations/global/collections/default_collection/engines/"
        "python-docs-app/sessions/-/answers/"
    )
    assert list(answer.answer_skipped_reasons) == []


def test_non_ascii_answer_has_byte_offsets(answer_client):
    answer = ask(answer_client, "東京の首都", parent="test-docs", kind="dataStores")
    assert "東京都は日本の首都です。" in answer.answer_text
    check_citations(answer)
    first = answer.citations[0]
    assert first.end_index - first.start_index > len(
        answer.answer_text.encode("utf-8")[first.start_index : first.end_index].decode()
    )
    assert answer.references[0].chunk_info.document_metadata.uri == "https://example.jp/tokyo"


def test_include_citations_false(answer_client):
    answer = ask(
        answer_client,
        "What does the yield statement do?",
        answer_generation_spec={"include_citations": False},
    )
    assert answer.answer_text
    assert list(answer.citations) == []
    assert answer.references


def test_grounding_supports_on_request(answer_client):
    answer = ask(
        answer_client,
        "What does the yield statement do?",
        grounding_spec={"include_grounding_supports": True},
    )
    assert answer.grounding_supports
    encoded = answer.answer_text.encode("utf-8")
    for support in answer.grounding_supports:
        assert encoded[support.start_index : support.end_index].decode("utf-8")
    plain = ask(answer_client, "What does the yield statement do?")
    assert list(plain.grounding_supports) == []


def test_filter_restricts_references(answer_client):
    answer = ask(
        answer_client,
        "lighthouse keeper logbook",
        parent="test-docs",
        kind="dataStores",
        search_spec={"search_params": {"filter": "rank = 7", "max_return_results": 3}},
    )
    assert answer.answer_text
    uris = {r.chunk_info.document_metadata.uri for r in answer.references}
    assert uris == {"https://example.com/paging/07"}


def test_max_return_results_bounds_references(answer_client):
    answer = ask(
        answer_client,
        "lighthouse keeper logbook lamp stairs",
        parent="test-docs",
        kind="dataStores",
        search_spec={"search_params": {"max_return_results": 1}},
    )
    assert len(answer.references) == 1


def test_nothing_relevant_is_skipped(answer_client):
    answer = ask(answer_client, "quantum chromodynamics on a lattice")
    assert answer.answer_text == ""
    assert list(answer.answer_skipped_reasons) == [NO_RELEVANT_CONTENT]
    assert list(answer.citations) == []
    assert answer.state == de.Answer.State.SUCCEEDED


def test_v1beta_service(emulator):
    client = versioned_client(
        discoveryengine_v1beta, "ConversationalSearchServiceClient", emulator.address
    )
    response = client.answer_query(
        request=discoveryengine_v1beta.AnswerQueryRequest(
            serving_config=serving_config("python-docs"),
            query={"text": "What does the yield statement do?"},
            answer_generation_spec={"include_citations": True},
        ),
        **ONCE,
    )
    assert "yield" in response.answer.answer_text
    assert response.answer.citations[0].sources[0].reference_id == "0"
    client.transport.close()


async def test_async_client(de_async_clients):
    client = de_async_clients.conversational_search_async()
    response = await client.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=serving_config("test-app", kind="engines"),
            query={"text": "astronaut crew trains"},
            answer_generation_spec={"include_citations": True},
        ),
        **ONCE,
    )
    assert "👩‍🚀👨‍🚀" in response.answer.answer_text
    check_citations(response.answer)


NON_ANSWER_SEEKING = de.Answer.AnswerSkippedReason.NON_ANSWER_SEEKING_QUERY_IGNORED
CLASSES = de.AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type


def test_non_answer_seeking_query_is_skipped_and_classified(answer_client):
    answer = ask(
        answer_client,
        "hello there!",
        answer_generation_spec={"include_citations": True, "ignore_non_answer_seeking_query": True},
        query_understanding_spec={
            "query_classification_spec": {
                "types": [CLASSES.NON_ANSWER_SEEKING_QUERY, CLASSES.JAIL_BREAKING_QUERY]
            }
        },
    )
    assert answer.answer_text == ""
    assert list(answer.answer_skipped_reasons) == [NON_ANSWER_SEEKING]
    info = answer.query_understanding_info.query_classification_info
    assert [(i.type_.name, i.positive) for i in info] == [
        ("NON_ANSWER_SEEKING_QUERY", True),
        ("JAIL_BREAKING_QUERY", False),
    ]


def test_answer_seeking_query_is_classified_negative(answer_client):
    answer = ask(
        answer_client,
        "What does the yield statement do?",
        answer_generation_spec={"include_citations": True, "ignore_non_answer_seeking_query": True},
        query_understanding_spec={
            "query_classification_spec": {"types": [CLASSES.NON_ANSWER_SEEKING_QUERY]}
        },
    )
    assert "yield" in answer.answer_text
    info = answer.query_understanding_info.query_classification_info
    assert [(i.type_.name, i.positive) for i in info] == [("NON_ANSWER_SEEKING_QUERY", False)]


def test_answer_sentences_are_not_repeated(answer_client):
    answer = ask(answer_client, "How does the with statement work?")
    encoded = answer.answer_text.encode("utf-8")
    cited = [encoded[c.start_index : c.end_index].decode() for c in answer.citations]
    assert cited
    assert len(cited) == len(set(cited))
    assert answer.answer_text == " ".join(cited)
    check_citations(answer)
    assert answer.references[0].chunk_info.document_metadata.uri.endswith(
        "/reference/compound_stmts.html#with"
    )


def test_combining_marks_answer_has_byte_offsets(answer_client):
    answer = ask(answer_client, "Zoë croissant morning", parent="test-docs", kind="dataStores")
    assert "Zoe\u0308 orders a croissant every morning." in answer.answer_text
    check_citations(answer)
    encoded = answer.answer_text.encode("utf-8")
    assert len(encoded) > len(answer.answer_text)
    last = answer.citations[-1]
    assert last.end_index == len(encoded)

import json

from google.cloud import discoveryengine_v1 as de

from grounding_core.convert import chunk_from_search_result
from grounding_core.metadata import answer_metadata, chunk_metadata, grounding_metadata
from grounding_core.records import (
    AnswerCitation,
    CitedChunk,
    Claim,
    GroundedAnswer,
    GroundingResult,
    GroundingSource,
    GroundingSupport,
    SourceChunk,
)
from grounding_core.render import UNSUPPORTED_MARK, answer_markdown, grounding_markdown

from .test_convert import full_result


def test_chunk_metadata_keeps_every_field_as_json():
    chunk = chunk_from_search_result(de.SearchResponse.SearchResult.pb(full_result()))
    metadata = chunk_metadata(chunk)
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata["source"] == metadata["uri"] == "https://example.com/doc-1"
    assert metadata["chunk_name"].endswith("/chunks/c1")
    assert (metadata["chunk_id"], metadata["document_id"]) == ("c1", "doc-1")
    assert (metadata["page_start"], metadata["page_end"]) == (3, 4)
    assert metadata["struct_data"]["tags"] == ["a", "b"]
    assert metadata["rank_signals"] == {
        "keyword_similarity_score": 1.25,
        "semantic_similarity_score": 0.5,
        "default_rank": 2.0,
        "custom_signals": {"bm25": 1.5},
    }
    assert metadata["model_scores"] == {"relevance": [0.1, 0.2]}
    assert metadata["previous_chunks"] == [
        {"name": metadata["chunk_name"].replace("c1", "c0"), "id": "c0", "content": "before"}
    ]
    assert metadata["annotation_metadata"][0]["structure_type"] == "CHECKBOX_STRUCTURE"
    # Every record field but the content has a key (the schema never loses a field).
    expected_fields = set(SourceChunk.__dataclass_fields__) - {"content", "page_span"}
    renamed = {"name": "chunk_name", "id": "chunk_id"}
    for field in expected_fields:
        assert renamed.get(field, field) in metadata


def test_empty_chunk_metadata_has_every_key():
    metadata = chunk_metadata(SourceChunk(name="n", content="c"))
    assert metadata["relevance_score"] is None
    assert metadata["rank_signals"] == {}
    assert metadata["page_start"] is None
    assert set(metadata) == set(
        chunk_metadata(chunk_from_search_result(de.SearchResponse.SearchResult.pb(full_result())))
    )


CITED_A = CitedChunk("Paris fact", source_index=0, fact_index=0, title="t0", uri="u0")
CITED_B = CitedChunk("Lyon fact", source_index=2, fact_index=1)
ANSWER = "Paris est la capitale ✓. Lyon est grande. Marseille a 10 M habitants. Merci !"


def result():
    claims = []
    for text, cited, check in [
        ("Paris est la capitale ✓.", (CITED_A,), True),
        ("Lyon est grande.", (CITED_B, CITED_A), True),
        ("Marseille a 10 M habitants.", (), True),
        ("Merci !", (), False),
    ]:
        start = ANSWER.index(text)
        claims.append(
            Claim(
                text,
                start,
                start + len(text),
                len(ANSWER[:start].encode()),
                len(ANSWER[: start + len(text)].encode()),
                tuple(range(len(cited))),
                cited,
                grounding_check_required=check,
            )
        )
    return GroundingResult(ANSWER, 0.66, tuple(claims), (CITED_A, CITED_B))


def test_grounding_metadata():
    metadata = grounding_metadata(result())
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata["support_score"] == 0.66
    assert [c["status"] for c in metadata["claims"]] == [
        "supported",
        "supported",
        "unsupported",
        "not_checked",
    ]
    assert metadata["claims"][1]["source_indices"] == [2, 0]
    assert metadata["unsupported_claims"] == 1
    for claim in metadata["claims"]:
        assert ANSWER[claim["start"] : claim["end"]] == claim["text"]
        assert ANSWER.encode()[claim["byte_start"] : claim["byte_end"]].decode() == claim["text"]


def test_grounding_markdown_numbers_sources_by_first_citation():
    sources = [
        GroundingSource(
            "Paris fact", {"title": "Paris [FR]", "source": "https://fr.example/paris"}
        ),
        GroundingSource(""),
        GroundingSource("Lyon fact", {"title": "Lyon", "source": "gs://bucket/lyon.pdf"}),
    ]
    markdown = grounding_markdown(result(), sources)
    assert markdown == (
        "Paris est la capitale ✓.[1] Lyon est grande.[2][1] Marseille a 10 M habitants. "
        f"{UNSUPPORTED_MARK} Merci !\n\n**Sources**\n\n"
        "1. [Paris \\[FR\\]](https://fr.example/paris)\n"
        "2. Lyon (gs://bucket/lyon.pdf)"
    )


def test_grounding_markdown_without_sources_uses_cited_chunks():
    markdown = grounding_markdown(result())
    assert "1. t0 (u0)" in markdown
    assert "2. Source 2" in markdown


def test_markdown_of_an_uncited_answer_has_no_source_list():
    plain = GroundingResult(
        "Hi.", None, (Claim("Hi.", 0, 3, 0, 3, grounding_check_required=False),)
    )
    assert grounding_markdown(plain) == "Hi."


def test_answer_markdown_and_metadata():
    ref = SourceChunk(name="r0", content="c", title="Lists", uri="https://docs.python.org/3/x")
    other = SourceChunk(name="r1", content="d", title="Done", uri="https://docs.python.org/3/y")
    text = "Lists 📋 are mutable. Done."
    citation = AnswerCitation(0, 20, 0, 23, text[:20], (0,), (ref,))
    # A reference index the service got wrong has no id (and no reference) to give.
    support = GroundingSupport(21, 26, 24, 29, "Done.", 0.75, True, (1, 5), (other,))
    answer = GroundedAnswer(
        text,
        (citation,),
        (ref, other),
        grounding_score=0.9,
        grounding_supports=(support,),
        state="SUCCEEDED",
        related_questions=("What is a tuple?",),
        name="answers/a1",
        session="sessions/s1",
    )
    assert answer_markdown(answer) == (
        "Lists 📋 are mutable.[1] Done.\n\n**Sources**\n\n1. [Lists](https://docs.python.org/3/x)"
    )
    metadata = answer_metadata(answer)
    assert json.loads(json.dumps(metadata)) == metadata
    assert metadata == {
        "grounding_score": 0.9,
        "citations": [
            {
                "text": "Lists 📋 are mutable.",
                "start": 0,
                "end": 20,
                "byte_start": 0,
                "byte_end": 23,
                "reference_indices": [0],
                "source_ids": ["r0"],
            }
        ],
        "grounding_supports": [
            {
                "text": "Done.",
                "start": 21,
                "end": 26,
                "byte_start": 24,
                "byte_end": 29,
                "reference_indices": [1, 5],
                "source_ids": ["r1"],
                "score": 0.75,
                "grounding_check_required": True,
            }
        ],
        "state": "SUCCEEDED",
        "skipped_reasons": [],
        "related_questions": ["What is a tuple?"],
        "answer_name": "answers/a1",
        "session": "sessions/s1",
        # Only the citations (not the grounding supports) are citation annotations; the
        # string indices count the emoji as one character (its UTF-8 bytes are 4).
        "citation_annotations": [
            {
                "start_index": 0,
                "end_index": 20,
                "cited_text": "c",
                "source_index": 0,
                "source_id": "r0",
                "url": "https://docs.python.org/3/x",
                "title": "Lists",
                "claim_index": None,
            }
        ],
    }


def test_skipped_answer_metadata():
    metadata = answer_metadata(GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT",)))
    assert metadata["skipped_reasons"] == ["NO_RELEVANT_CONTENT"]
    assert (metadata["citations"], metadata["grounding_supports"]) == ([], [])
    assert metadata["grounding_score"] is None

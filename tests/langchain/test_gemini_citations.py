"""``cite_gemini``: a ChatVertexAI / ChatGoogleGenerativeAI answer's grounding made right.

The message is shaped as langchain-google-genai gives it: Gemini's metadata as a snake_case
dict in ``response_metadata["grounding_metadata"]`` (``_response_to_result``), the text as the
message content; see ``tests/core/grounding/test_gemini.py`` for the sources of the shapes.
"""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage

from grounding_core import InputError
from langchain_grounding.gemini_citations import cite_gemini

ANSWER = "東京は日本の首都です。🗼 は有名です。"
METADATA = {
    "grounding_chunks": [
        {"web": {"uri": "https://ja.example/tokyo", "title": "東京", "domain": "ja.example"}},
        {
            "retrieved_context": {
                "uri": "gs://b/tower.txt",
                "title": "Tower",
                "text": "🗼 は有名です。",
            }
        },
    ],
    "grounding_supports": [
        {
            "segment": {"start_index": 0, "end_index": 33, "text": "東京は日本の首都です。"},
            "grounding_chunk_indices": [0],
            "confidence_scores": [0.93],
        },
        {
            "segment": {"start_index": 33, "end_index": 56, "text": "🗼 は有名です。"},
            "grounding_chunk_indices": [1],
            "confidence_scores": [0.71],
        },
    ],
    "web_search_queries": ["東京 首都"],
}


def test_the_message_gets_citation_annotations_that_slice_the_answer():
    message = AIMessage(ANSWER, id="run-1", response_metadata={"grounding_metadata": METADATA})
    cited = cite_gemini(message)
    assert cited.message.id == "run-1"
    assert cited.message.text == ANSWER
    (block,) = cited.message.content_blocks
    assert block["type"] == "text"
    assert block["text"] == ANSWER
    annotations = [{k: v for k, v in a.items() if k != "id"} for a in block["annotations"]]
    assert annotations == [
        {
            "type": "citation",
            "url": "https://ja.example/tokyo",
            "title": "東京",
            "start_index": 0,
            "end_index": 11,
            "cited_text": "",
            "extras": {"source_index": 0, "source_id": "0", "claim_index": 0},
        },
        {
            "type": "citation",
            "url": "gs://b/tower.txt",
            "title": "Tower",
            "start_index": 11,
            "end_index": 19,
            "cited_text": "🗼 は有名です。",
            "extras": {"source_index": 1, "source_id": "1", "claim_index": 1},
        },
    ]
    assert [ANSWER[a["start_index"] : a["end_index"]] for a in annotations] == [
        "東京は日本の首都です。",
        "🗼 は有名です。",
    ]
    grounding = cited.message.response_metadata["grounding"]
    assert [
        (c["text"], c["start"], c["end"], c["byte_start"], c["byte_end"], c["score"])
        for c in grounding["claims"]
    ] == [
        ("東京は日本の首都です。", 0, 11, 0, 33, 0.93),
        ("🗼 は有名です。", 11, 19, 33, 56, 0.71),
    ]
    assert grounding["web_search_queries"] == ["東京 首都"]
    assert grounding["passed"] is True
    assert cited.message.response_metadata["grounding_metadata"] == METADATA
    assert cited.documents == [
        Document(
            "",
            id="https://ja.example/tokyo",
            metadata={
                "source": "https://ja.example/tokyo",
                "uri": "https://ja.example/tokyo",
                "title": "東京",
                "chunk_type": "web",
                "domain": "ja.example",
            },
        ),
        Document(
            "🗼 は有名です。",
            id="gs://b/tower.txt",
            metadata={
                "source": "gs://b/tower.txt",
                "uri": "gs://b/tower.txt",
                "title": "Tower",
                "chunk_type": "retrieved_context",
            },
        ),
    ]


def test_a_google_genai_response_becomes_a_cited_message():
    response = {
        "candidates": [{"content": {"parts": [{"text": ANSWER}]}, "grounding_metadata": METADATA}]
    }
    cited = cite_gemini(response)
    assert cited.message.text == ANSWER
    assert [a["end_index"] for a in cited.message.content_blocks[0]["annotations"]] == [11, 19]


def test_a_message_without_gemini_metadata_or_with_a_bad_one_is_refused():
    with pytest.raises(
        InputError, match="no response_metadata\\['grounding_metadata'\\]"
    ) as caught:
        cite_gemini(AIMessage("x"))
    assert caught.value.field == "response_metadata.grounding_metadata"
    bad = {
        "grounding_chunks": [],
        "grounding_supports": [{"segment": {"end_index": 1}, "grounding_chunk_indices": [3]}],
    }
    with pytest.raises(InputError, match="is 3, but there are 0 grounding_chunks"):
        cite_gemini(AIMessage("x", response_metadata={"grounding_metadata": bad}))

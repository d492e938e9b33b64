"""One metadata schema for grounded answers: the same answerQuery through LangChain and
LlamaIndex gives the same metadata, key by key (docs/metadata.md, "Grounded answers")."""

import dataclasses
import json
from pathlib import Path

import pytest

import langchain_grounding as lc
import llamaindex_grounding as li
from grounding_core import GroundedAnswer, answer_metadata

from .same import assert_same

PROJECT = "test-project"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "metadata.md"

ANSWER_KEYS = {
    "grounding_score",
    "citations",
    "grounding_supports",
    "state",
    "skipped_reasons",
    "related_questions",
    "answer_name",
    "session",
    "citation_annotations",
}
CITATION_KEYS = {
    "text",
    "start",
    "end",
    "byte_start",
    "byte_end",
    "reference_indices",
    "source_ids",
}
SUPPORT_KEYS = CITATION_KEYS | {"score", "grounding_check_required"}
# Framework glue around the shared keys: LangChain's output dict, LlamaIndex's metadata.
LANGCHAIN_KEYS = ANSWER_KEYS | {"query", "answer", "documents", "grounded_answer"}
LLAMAINDEX_KEYS = ANSWER_KEYS | {"grounded_answer", "citation_blocks"}


def test_the_documented_schema_is_the_core_schema():
    assert set(answer_metadata(GroundedAnswer("x"))) == ANSWER_KEYS
    section = DOCS.read_text(encoding="utf-8").split("## Grounded answers", 1)[1]
    section = section.split("\n## ", 1)[0]
    for key in ANSWER_KEYS | SUPPORT_KEYS:
        assert f"`{key}`" in section, f"docs/metadata.md does not describe {key!r}"


def without_name(answer):
    """The record without its resource name (the service names every answer anew)."""
    assert answer.name == "" or "/answers/" in answer.name
    return dataclasses.replace(answer, name="")


def assert_one_schema(out, response):
    """LangChain's answer output and LlamaIndex's answer response agree key by key."""
    assert set(out) == LANGCHAIN_KEYS
    assert set(response.metadata) == LLAMAINDEX_KEYS
    langchain = {key: out[key] for key in ANSWER_KEYS}
    llamaindex = {key: response.metadata[key] for key in ANSWER_KEYS}
    # Two calls, two answer names (the same parent); the rest of the answer is the same.
    names = [langchain["answer_name"], llamaindex["answer_name"]]
    assert len({name.rsplit("/", 1)[0] for name in names}) == 1
    assert_same({**langchain, "answer_name": ""}, {**llamaindex, "answer_name": ""}, "answer")
    assert without_name(out["grounded_answer"]) == without_name(
        response.metadata["grounded_answer"]
    )
    assert out["answer"] == response.response == out["grounded_answer"].answer_text
    # The references: the chunk schema, and the ids the citations name
    ids = [d.id for d in out["documents"]]
    assert ids == [n.node.node_id for n in response.source_nodes]
    for document, hit in zip(out["documents"], response.source_nodes, strict=True):
        assert document.page_content == hit.node.text
        assert_same(document.metadata, hit.node.metadata, f"reference {document.id}")
    for item in [*langchain["citations"], *langchain["grounding_supports"]]:
        assert out["answer"][item["start"] : item["end"]] == item["text"]
        assert (
            out["answer"].encode()[item["byte_start"] : item["byte_end"]].decode() == item["text"]
        )
        assert item["source_ids"] == [ids[i] for i in item["reference_indices"]]
    assert all(set(c) == CITATION_KEYS for c in langchain["citations"])
    assert all(set(s) == SUPPORT_KEYS for s in langchain["grounding_supports"])
    json.dumps(langchain)
    return langchain


@pytest.mark.parametrize(
    ("target", "options", "query"),
    [
        ({"engine_id": "python-docs-app"}, {}, "What does the with statement do?"),
        (
            {"data_store_id": "test-docs"},
            {"include_grounding_supports": True, "filter": "rank = 3"},
            "lighthouse keeper logbook",
        ),
        ({"data_store_id": "test-docs"}, {"max_return_results": 2}, "東京都は日本の首都ですか"),
        ({"engine_id": "test-app"}, {"search_mode": "documents"}, "Cape Canaveral 🚀"),
    ],
    ids=["engine", "grounding-supports", "non-ascii", "documents-mode"],
)
def test_discovery_engine_answers_have_one_schema(emulator, target, options, query):
    settings = {"project_id": PROJECT, "emulator_host": emulator.address, **target, **options}
    out = lc.DiscoveryEngineAnswer(**settings).invoke(query)
    response = li.DiscoveryEngineAnswerQueryEngine(**settings).query(query)
    metadata = assert_one_schema(out, response)
    assert metadata["citations"]
    assert metadata["state"] == "SUCCEEDED"
    assert metadata["skipped_reasons"] == []
    # Google sets grounding_score (and grounding_supports) only with include_grounding_supports.
    supports = bool(options.get("include_grounding_supports"))
    assert (metadata["grounding_score"] is not None) is supports
    assert bool(metadata["grounding_supports"]) is supports
    assert out["answer_name"] == out["grounded_answer"].name


def test_the_values_are_the_ones_the_service_sent(emulator):
    settings = {"project_id": PROJECT, "emulator_host": emulator.address}
    out = lc.DiscoveryEngineAnswer(
        engine_id="python-docs-app", include_grounding_supports=True, **settings
    ).invoke("What does the with statement do?")
    response = li.DiscoveryEngineAnswerQueryEngine(
        engine_id="python-docs-app", include_grounding_supports=True, **settings
    ).query("What does the with statement do?")
    metadata = assert_one_schema(out, response)
    record = out["grounded_answer"]
    assert metadata["grounding_score"] == record.grounding_score == 1.0
    assert [s["score"] for s in metadata["grounding_supports"]] == [
        s.score for s in record.grounding_supports
    ]
    first = metadata["grounding_supports"][0]
    assert first["source_ids"][0].endswith(
        "/dataStores/python-docs/branches/default_branch/documents/with/chunks/c1"
    )
    assert (first["start"], first["grounding_check_required"]) == (0, True)
    assert metadata["answer_name"].startswith(
        f"projects/{PROJECT}/locations/global/collections/default_collection/engines/"
        "python-docs-app/sessions/-/answers/"
    )
    assert (metadata["session"], metadata["related_questions"]) == ("", [])


def test_a_skipped_answer_has_the_same_schema(emulator):
    settings = {
        "project_id": PROJECT,
        "emulator_host": emulator.address,
        "data_store_id": "test-docs",
    }
    out = lc.DiscoveryEngineAnswer(**settings).invoke("zeppelin quasar xylophone")
    response = li.DiscoveryEngineAnswerQueryEngine(**settings).query("zeppelin quasar xylophone")
    metadata = assert_one_schema(out, response)
    assert metadata["skipped_reasons"] == ["NO_RELEVANT_CONTENT"]
    assert (metadata["citations"], out["documents"], out["answer"]) == ([], [], "")


async def test_async_answers_have_the_same_schema(emulator):
    settings = {"project_id": PROJECT, "emulator_host": emulator.address, "engine_id": "test-app"}
    out = await lc.DiscoveryEngineAnswer(**settings).ainvoke("Which keeper has number 245?")
    response = await li.DiscoveryEngineAnswerQueryEngine(**settings).aquery(
        "Which keeper has number 245?"
    )
    metadata = assert_one_schema(out, response)
    assert "245" in out["answer"]
    assert metadata["citations"][0]["source_ids"][0].endswith("/documents/page-24/chunks/c5")


@pytest.mark.parametrize("filter", ["", 'data_source = "docs.python.org"'])
def test_developer_knowledge_answers_have_one_schema(emulator, filter):
    query = "What does the yield statement do?"
    host = emulator.address
    out = lc.DeveloperKnowledgeAnswer(filter=filter, emulator_host=host).invoke(query)
    response = li.DeveloperKnowledgeAnswerQueryEngine(filter=filter, emulator_host=host).query(
        query
    )
    metadata = assert_one_schema(out, response)
    assert metadata["citations"]
    assert metadata["citations"][0]["source_ids"][0].startswith("documents/docs.python.org/")
    # What the Developer Knowledge API does not send stays empty, in both.
    assert (metadata["grounding_score"], metadata["grounding_supports"]) == (None, [])
    assert (metadata["answer_name"], metadata["session"]) == ("", "")

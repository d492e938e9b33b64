"""The peers' documented apps, ported to ours by changing the import and the class names alone
(docs/migrating.md), give the peers' results on the emulator.

The peers' side was recorded in their own virtualenvs (``peer_results.json``, made by
``python -m tests.migration.record_peers``); ours runs here, on an emulator serving what the
recording's did (the built-in corpus, BM25 search). The peers' argument names must warn
(``DeprecationWarning``) and work.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from typing import Any

import pytest

from tests.documentation.test_doc_blocks import execute
from tests.migration.guide_apps import FRAMEWORKS, GUIDE, PORTS, blocks_of, port
from tests.migration.record_peers import RECORDING, app_blocks

RECORD_COMMAND = "python -m tests.migration.record_peers"


@pytest.fixture(scope="module")
def recording() -> dict[str, Any]:
    return json.loads(RECORDING.read_text(encoding="utf-8"))


def run_ported(
    framework: str, address: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, Any], list[str]]:
    """Our side: the guide's setup blocks, then the peer's block ported, in one namespace on the
    emulator at ``address``; returns the namespace and the deprecation warnings raised."""
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", address)
    namespace: dict[str, Any] = {"__name__": "ported_app"}
    (peer,) = blocks_of("peer", framework)
    for block in blocks_of("setup", framework):
        assert block.line < peer.line
        execute(block, namespace)
    ported = dataclasses.replace(peer, code=port(peer.code, framework))
    with pytest.warns(DeprecationWarning, match="Write our names") as caught:
        execute(ported, namespace)
    return namespace, [str(w.message) for w in caught if w.category is DeprecationWarning]


def test_the_recording_is_of_the_guides_apps(recording):
    assert set(recording["apps"]) == set(FRAMEWORKS)
    assert recording["how_made"].startswith(RECORD_COMMAND)
    for framework in FRAMEWORKS:
        recorded = [block["code"] for block in recording["apps"][framework]["blocks"]]
        assert recorded == [block["code"] for block in app_blocks(framework)], (
            f"docs/migrating.md's {framework} app changed since the peers' results were "
            f"recorded: run {RECORD_COMMAND}"
        )


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_guide_shows_the_port_of_the_peers_code(framework):
    (peer,) = blocks_of("peer", framework)
    (ported,) = blocks_of("ported", framework)
    assert ported.code == port(peer.code, framework)
    changed = [
        line
        for line in difflib.ndiff(peer.code.splitlines(), ported.code.splitlines())
        if line.startswith("+ ")
    ]
    # Only the import and the lines naming a class change.
    rule = PORTS[framework]
    assert changed
    assert all(
        rule.our_module in line or any(ours in line for _, ours in rule.classes) for line in changed
    )


def test_port_changes_module_and_class_names_only():
    code = (
        "from langchain_google_community import VertexAICheckGroundingWrapper, "
        "VertexAISearchRetriever\nr = VertexAISearchRetriever(max_documents=3)  # "
        "MyVertexAISearchRetrieverX\n"
    )
    assert port(code, "langchain") == (
        "from langchain_grounding import GroundingChecker, DiscoveryEngineRetriever\n"
        "r = DiscoveryEngineRetriever(max_documents=3)  # MyVertexAISearchRetrieverX\n"
    )
    assert port("from llama_index.retrievers.vertexai_search import X", "llamaindex") == (
        "from llamaindex_grounding import X"
    )


def _sources(documents: list[Any]) -> list[str]:
    return [d["metadata"]["source"] for d in documents]


def test_the_langchain_rag_chain_and_check_give_the_peers_results(
    recording, builtin_emulator, monkeypatch
):
    peer = recording["apps"]["langchain"]["outputs"]
    ours, warned = run_ported("langchain", builtin_emulator.address, monkeypatch)

    # The peer's names warn, naming ours.
    assert any("location_id" in w and "location" in w for w in warned), warned
    assert any("max_documents" in w and "k=3" in w for w in warned), warned

    docs = ours["docs"]
    assert [d.page_content for d in docs] == [d["text"] for d in peer["docs"]]
    assert [d.metadata["source"] for d in docs] == _sources(peer["docs"])
    assert ours["answer"] == peer["answer"]

    # The peer's CheckGroundingResponse, field for field.
    response, recorded = ours["result"], peer["result"]
    assert response.support_score == pytest.approx(recorded["support_score"])
    assert response.claims == recorded["claims"]
    assert [(c["chunk_text"], c["source"].page_content) for c in response.cited_chunks] == [
        (c["chunk_text"], c["source"]["page_content"]) for c in recorded["cited_chunks"]
    ]
    assert all(c["source"] in ours["facts"] for c in response.cited_chunks)
    assert response.answer_with_citations == recorded["answer_with_citations"]


def _quoted_warnings() -> list[str]:
    """The warnings docs/migrating.md quotes (its ``text`` blocks), whitespace normalized."""
    quoted = re.findall(r"^```text\n(.*?)^```$", GUIDE.read_text(encoding="utf-8"), re.S | re.M)
    return [" ".join(text.split()) for text in quoted]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_the_guide_quotes_the_warnings_the_port_raises(framework, builtin_emulator, monkeypatch):
    _, warned = run_ported(framework, builtin_emulator.address, monkeypatch)
    raised = {" ".join(w.split()) for w in warned}
    quoted = [q for q in _quoted_warnings() if PORTS[framework].peer_package in q]
    assert len(quoted) == 1
    assert quoted[0] in raised


def test_the_langchain_extractive_answers_are_the_peers_one_document_per_result(
    recording, builtin_emulator, monkeypatch
):
    peer = recording["apps"]["langchain"]["outputs"]["answers"]
    ours, _ = run_ported("langchain", builtin_emulator.address, monkeypatch)
    # The peer: one document per extractive answer; ours: one per search result, its answers
    # joined by a blank line, in the same order.
    sources = list(dict.fromkeys(_sources(peer)))
    assert len(peer) > len(sources)
    grouped = [
        "\n\n".join(d["text"] for d in peer if d["metadata"]["source"] == s) for s in sources
    ]
    answers = ours["answers"]
    assert [d.metadata["source"] for d in answers] == sources
    assert [d.page_content for d in answers] == grouped
    assert [d.metadata["document_id"] for d in answers] == list(
        dict.fromkeys(d["metadata"]["id"] for d in peer)
    )


def test_the_peers_metadata_keys_read_the_same(recording, builtin_emulator, monkeypatch):
    peer = recording["apps"]["langchain"]["outputs"]["docs"]
    ours, _ = run_ported("langchain", builtin_emulator.address, monkeypatch)
    # The peer's names chose the flat layout: every key of the peer's, with its value.
    assert ours["retriever"].metadata_layout == "flat"
    for doc, recorded in zip(ours["docs"], peer, strict=True):
        assert {"id", "previous_segments", "next_segments"} <= set(recorded["metadata"])
        assert {k: doc.metadata[k] for k in recorded["metadata"]} == recorded["metadata"]
        # In our names, every key of ours is there, "id" among them, in the default layout.
        assert doc.metadata["id"] == doc.metadata["document_id"]


def test_the_llamaindex_retriever_and_query_engine_give_the_peers_results(
    recording, builtin_emulator, monkeypatch
):
    peer = recording["apps"]["llamaindex"]["outputs"]
    ours, warned = run_ported("llamaindex", builtin_emulator.address, monkeypatch)

    assert any("location_id" in w for w in warned), warned
    assert any("engine_data_type" in w and "documents" in w for w in warned), warned

    assert _texts(ours["nodes"]) == [n["text"] for n in peer["nodes"]]
    # The peer scores a node with its extractive segment's relevanceScore; ours, a document's
    # best segment score (one segment each here).
    assert [n.score for n in ours["nodes"]] == pytest.approx([n["score"] for n in peer["nodes"]])
    # The LlamaIndex peer's nodes have no metadata; the LangChain peer's first three documents
    # of the same search have the sources ours must have.
    langchain_docs = recording["apps"]["langchain"]["outputs"]["docs"]
    assert [n.node.metadata["source"] for n in ours["nodes"][:3]] == _sources(langchain_docs)
    # The query engine answered from the same nodes. (Its answer, MockLLM's echo of the
    # prompt, differs on purpose: our nodes show the LLM their title and source.)
    response = ours["response"]
    assert _texts(response.source_nodes) == [n["text"] for n in peer["response"]["source_nodes"]]
    assert _texts(ours["nodes"])[0] in str(response)


def _texts(nodes: list[Any]) -> list[str]:
    return [n.node.get_content() for n in nodes]

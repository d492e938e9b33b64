"""One metadata schema for a grounding report: the same answer checked against the same sources
gives the same metadata, key by key, in LangChain and in LlamaIndex (docs/metadata.md)."""

import json

import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import MetadataMode, TextNode

import langchain_grounding as lc
import llamaindex_grounding as li
from tests.llamaindex.test_grounded_query_engine import FixedQueryEngine

from .same import assert_same, node_id

PROJECT = "test-project"
QUESTION = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
UNSUPPORTED = "The lighthouse was painted bright purple in 1850."
ANSWER = f"{KEEPER} {UNSUPPORTED}"

REPORT_KEYS = {
    "support_score",
    "claims",
    "cited_chunks",
    "unsupported_claims",
    "passed",
    "error",
    "source_ids",
    "skipped_reason",
    "citation_annotations",
}
CLAIM_KEYS = {
    "text",
    "start",
    "end",
    "byte_start",
    "byte_end",
    "status",
    "score",
    "grounding_check_required",
    "citation_indices",
    "source_indices",
    "source_ids",
}
FAILED_KEYS = REPORT_KEYS  # every key on every path


@pytest.fixture
def connection(emulator):
    return {"project_id": PROJECT, "emulator_host": emulator.address}


@pytest.fixture
def documents(connection):
    retriever = lc.DiscoveryEngineRetriever(data_store_id="test-docs", k=2, **connection)
    return retriever.invoke(QUESTION)


@pytest.fixture
def nodes(connection):
    retriever = li.DiscoveryEngineRetriever(
        data_store_id="test-docs", similarity_top_k=2, **connection
    )
    return retriever.retrieve(QUESTION)


def langchain_metadata(connection, answer, documents):
    """The checker's ``response_metadata``, after checking that its other forms agree."""
    checker = lc.GroundingChecker(enable_claim_level_score=True, **connection)
    out = checker.invoke({"answer": AIMessage(content=answer), "documents": documents})
    metadata = out["answer"].response_metadata["grounding"]
    assert_same(out["grounding"].metadata(), metadata)
    handler = lc.GroundingCallbackHandler(checker=checker)
    chain = RunnableLambda(lambda question: {"answer": answer, "documents": documents})
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    assert_same(handler.latest.metadata(), metadata)
    return metadata


def llamaindex_metadata(connection, answer, nodes):
    """The query engine's ``response.metadata["grounding"]``, after checking that the
    evaluator's agrees."""
    engine = li.GroundedQueryEngine(
        FixedQueryEngine(Response(answer, source_nodes=nodes)),
        enable_claim_level_score=True,
        **connection,
    )
    metadata = engine.query(QUESTION).metadata["grounding"]
    evaluator = li.GroundingEvaluator(enable_claim_level_score=True, **connection)
    result = evaluator.evaluate_response(response=Response(answer, source_nodes=nodes))
    assert_same(result.grounding, metadata)
    return metadata


def test_the_same_chunks_in_both_frameworks(documents, nodes):
    assert [node_id(d) for d in documents] == [n.node.node_id for n in nodes]
    assert [d.page_content for d in documents] == [n.node.text for n in nodes]
    assert [d.metadata for d in documents] == [n.node.metadata for n in nodes]


def test_documents_and_nodes_give_the_same_metadata(connection, documents, nodes):
    langchain = langchain_metadata(connection, ANSWER, documents)
    llamaindex = llamaindex_metadata(connection, ANSWER, nodes)
    # The one difference is the fact text: what each framework's LLM is given (a LangChain
    # document's page_content; a LlamaIndex node's MetadataMode.LLM text, with its metadata).
    assert [c["text"] for c in langchain["cited_chunks"]] == [documents[0].page_content]
    assert [c["text"] for c in llamaindex["cited_chunks"]] == [
        nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    ]
    for chunk in llamaindex["cited_chunks"]:
        chunk["text"] = documents[chunk["source_index"]].page_content
    # ... and so is the cited text of the citation annotations, which quote the facts
    assert [c["cited_text"] for c in llamaindex["citation_annotations"]] == [
        nodes[0].node.get_content(metadata_mode=MetadataMode.LLM)
    ]
    for span in llamaindex["citation_annotations"]:
        span["cited_text"] = documents[span["source_index"]].page_content
    assert_same(langchain, llamaindex)
    # ... and it is the documented schema, with values that say what they should
    assert set(langchain) == REPORT_KEYS
    ids = [d.id for d in documents]
    assert langchain["source_ids"] == ids
    assert ids[0].endswith(
        "/dataStores/test-docs/branches/default_branch/documents/page-13/chunks/c1"
    )
    assert langchain["support_score"] == pytest.approx(0.5)
    assert (langchain["passed"], langchain["error"], langchain["unsupported_claims"]) == (
        False,
        None,
        1,
    )
    keeper, unsupported = langchain["claims"]
    assert set(keeper) == set(unsupported) == CLAIM_KEYS
    assert (keeper["text"], keeper["start"], keeper["end"]) == (KEEPER, 0, len(KEEPER))
    assert (keeper["byte_start"], keeper["byte_end"]) == (0, len(KEEPER.encode()))
    assert (keeper["status"], keeper["source_indices"], keeper["source_ids"]) == (
        "supported",
        [0],
        [ids[0]],
    )
    assert keeper["citation_indices"] == [0]
    assert isinstance(keeper["score"], float)
    assert (unsupported["status"], unsupported["source_ids"]) == ("unsupported", [])
    assert ANSWER[unsupported["start"] : unsupported["end"]] == UNSUPPORTED
    assert [c["source_index"] for c in langchain["cited_chunks"]] == [0]
    assert langchain["cited_chunks"][0]["attributes"]["document_id"] == "page-13"
    assert langchain["citation_annotations"] == [
        {
            "start_index": 0,
            "end_index": len(KEEPER),
            "cited_text": documents[0].page_content,
            "source_index": 0,
            "source_id": ids[0],
            "url": "https://example.com/paging/13",
            "title": "Paging document 13",
            "claim_index": 0,
        }
    ]
    json.dumps(langchain)


def test_texts_are_named_by_their_positions_in_both_frameworks(connection, documents):
    texts = ["", *(d.page_content for d in documents)]
    checker = lc.GroundingChecker(enable_claim_level_score=True, **connection)
    langchain = checker.invoke({"answer": ANSWER, "documents": texts})["grounding"].metadata()
    evaluator = li.GroundingEvaluator(enable_claim_level_score=True, **connection)
    llamaindex = evaluator.evaluate(response=ANSWER, contexts=texts).grounding
    assert_same(langchain, llamaindex)
    assert langchain["source_ids"] == ["0", "1", "2"]
    # the empty text is no fact, yet the claim cites the right position
    assert langchain["claims"][0]["source_ids"] == ["1"]
    assert langchain["claims"][0]["source_indices"] == [1]


def test_a_failed_check_gives_the_same_metadata(connection, emulator, documents, nodes):
    handler = lc.GroundingCallbackHandler(retry=None, **connection)
    chain = RunnableLambda(lambda question: {"answer": ANSWER, "documents": documents})
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    chain.invoke(QUESTION, config={"callbacks": [handler]})
    langchain = handler.latest.metadata()
    engine = li.GroundedQueryEngine(
        FixedQueryEngine(Response(ANSWER, source_nodes=nodes)), retry=None, **connection
    )
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    llamaindex = engine.query(QUESTION).metadata["grounding"]
    assert_same(langchain, llamaindex)
    assert set(langchain) == FAILED_KEYS
    assert (langchain["support_score"], langchain["passed"]) == (None, False)
    assert langchain["error"].startswith("ServiceUnavailableError: CheckGrounding on projects/")
    assert langchain["source_ids"] == [d.id for d in documents]


def test_the_defaults_are_the_same_in_both_frameworks(connection):
    checker = lc.GroundingChecker(**connection)
    engine = li.GroundedQueryEngine(FixedQueryEngine(Response("x")), **connection)
    evaluator = li.GroundingEvaluator(**connection)
    for check in (engine._checker, evaluator._checker):
        assert check.spec == checker.grounding_check.spec
        assert check.grounding_config == checker.grounding_check.grounding_config
        assert check.min_support_score == checker.min_support_score
        assert check.fallback_answer == checker.fallback_answer
    assert engine.on_ungrounded == checker.on_ungrounded == "annotate"


ROCKETS = "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."
CREW = "The crew 👩‍🚀 launches from Cape Canaveral too."


def grounded_generations(connection, question, **source):
    """The grounding metadata of one grounded generation in each framework: the same sources
    (two documents / nodes of the same ids and texts, or a data store)."""
    texts = {"rockets": f"{ROCKETS} {CREW}", "tokyo": "東京都は日本の首都です。"}
    documents = [Document(text, id=key) for key, text in texts.items()]
    nodes = [TextNode(text=text, id_=key) for key, text in texts.items()]
    inline = not source
    chat = lc.ChatDiscoveryEngineGrounded(
        documents=documents if inline else (), **source, **connection
    )
    llm = li.DiscoveryEngineGroundedLLM(nodes=nodes if inline else (), **source, **connection)
    langchain = chat.invoke(question).response_metadata["grounding"]
    llamaindex = llm.complete(question).additional_kwargs["grounding"]
    return langchain, llamaindex


def test_grounded_generation_gives_the_same_metadata_and_its_grounding_score(connection):
    langchain, llamaindex = grounded_generations(connection, "Who launches from Cape Canaveral?")
    assert_same(langchain, llamaindex)
    assert set(langchain) == REPORT_KEYS | {"grounding_score"}
    assert langchain["grounding_score"] == langchain["support_score"] == 1.0
    assert langchain["source_ids"] == ["rockets", "tokyo"]
    first, second = langchain["claims"]
    assert set(first) == set(second) == CLAIM_KEYS
    assert [
        (c["text"], c["start"], c["end"], c["byte_start"], c["byte_end"]) for c in (first, second)
    ] == [
        (ROCKETS, 0, 52, 0, 61),
        (CREW, 53, 99, 62, 116),
    ]
    assert [(c["status"], c["score"], c["source_ids"]) for c in (first, second)] == [
        ("supported", 1.0, ["rockets"]),
        ("supported", 1.0, ["rockets"]),
    ]
    json.dumps(langchain)


def test_a_searched_grounded_generation_names_its_chunks_the_same(connection):
    langchain, llamaindex = grounded_generations(
        connection, "Where do rockets launch from?", data_store_id="test-docs", max_result_count=2
    )
    assert_same(langchain, llamaindex)
    assert isinstance(langchain["grounding_score"], float)
    assert langchain["source_ids"]
    assert all("/dataStores/test-docs/" in i and "/chunks/" in i for i in langchain["source_ids"])


def test_an_empty_grounded_answer_has_no_grounding_score(connection):
    langchain, llamaindex = grounded_generations(connection, "Xylophones?")
    assert_same(langchain, llamaindex)
    assert set(langchain) == REPORT_KEYS | {"grounding_score"}
    assert (langchain["grounding_score"], langchain["support_score"], langchain["claims"]) == (
        None,
        None,
        [],
    )

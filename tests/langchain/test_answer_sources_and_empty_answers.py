"""Issue 16, point 12 in LangChain: two chunks of one Developer Knowledge document are two
documents, a declined or empty answer is a result (answer runnables, GroundingChecker,
with_grounding, the callback handlers), and the facts are the documents' ``page_content``."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnablePassthrough

from grounding_core.grounding.report import NOTHING_TO_CHECK
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    DeveloperKnowledgeAnswer,
    DeveloperKnowledgeRetriever,
    GroundingCallbackHandler,
    GroundingChecker,
    with_grounding,
)
from tests.developer_corpus import (
    BOTH,
    CREATE,
    DESCRIPTION,
    NOTHING,
    PARENT,
    REMOVE,
    two_chunk_emulator,
)

from .conftest import PROMPT, format_docs

__all__ = ["two_chunk_emulator"]

PROJECT = "test-project"
# The skip reason of an answer the service sent no text and no reason for.
EMPTY_ANSWER = "EMPTY_ANSWER"


@pytest.fixture
def checker(two_chunk_emulator):
    return GroundingChecker(project_id=PROJECT, emulator_host=two_chunk_emulator.address)


def declining_chain(server):
    """A RAG chain whose model answers nothing (an empty message)."""
    retriever = DeveloperKnowledgeRetriever(emulator_host=server.address, k=2)
    llm = FakeListChatModel(responses=[""] * 4)
    return (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | llm
        | StrOutputParser()
    )


def assert_nothing_to_check(report):
    assert report.skipped_reason == NOTHING_TO_CHECK
    metadata = report.metadata()
    assert (metadata["claims"], metadata["passed"], metadata["error"]) == ([], False, None)
    assert metadata["skipped_reason"] == NOTHING_TO_CHECK


def test_two_chunks_of_one_document_are_two_documents(two_chunk_emulator):
    out = DeveloperKnowledgeAnswer(emulator_host=two_chunk_emulator.address).invoke(BOTH)
    first, second = out["documents"]
    assert first.id != second.id
    assert first.id.startswith(f"{PARENT}#")
    assert second.id.startswith(f"{PARENT}#")
    assert first.metadata["document_name"] == second.metadata["document_name"] == PARENT
    assert [c["source_ids"] for c in out["citations"]] == [[first.id], [second.id]]
    assert [c["text"] for c in out["citations"]] == [CREATE, REMOVE]


async def test_a_declined_answer_is_a_result_with_its_reason(two_chunk_emulator):
    answerer = DeveloperKnowledgeAnswer(emulator_host=two_chunk_emulator.address)
    for out in (answerer.invoke(NOTHING), await answerer.ainvoke(NOTHING)):
        assert (out["answer"], out["documents"], out["citations"]) == ("", [], [])
        assert out["skipped_reasons"] == [EMPTY_ANSWER]
        assert out["grounded_answer"].skipped


async def test_the_checker_reports_nothing_to_check(checker):
    documents = [Document(page_content=CREATE, id="d")]
    for answer in ("", "  "):
        out = checker.invoke({"answer": answer, "documents": documents})
        assert out["answer"] == answer
        assert_nothing_to_check(out["grounding"])
        assert_nothing_to_check(checker.check(answer, documents))
        assert_nothing_to_check(await checker.acheck(answer, documents))
    raising = checker.model_copy(update={"on_ungrounded": "raise"})
    assert_nothing_to_check(raising.invoke({"answer": "", "documents": documents})["grounding"])


async def test_with_grounding_and_the_callbacks_on_a_declining_chain(two_chunk_emulator, checker):
    chain = declining_chain(two_chunk_emulator)
    out = with_grounding(chain, checker).invoke(BOTH)
    assert out["answer"] == ""
    assert len(out["documents"]) == 2
    assert_nothing_to_check(out["grounding"])
    assert out["grounding"].source_ids == tuple(d.id for d in out["documents"])
    handler = GroundingCallbackHandler(checker=checker)
    assert chain.invoke(BOTH, config={"callbacks": [handler]}) == ""
    assert_nothing_to_check(handler.latest)
    handler = AsyncGroundingCallbackHandler(checker=checker)
    assert await chain.ainvoke(BOTH, config={"callbacks": [handler]}) == ""
    assert_nothing_to_check(handler.latest)


def test_the_facts_are_the_page_content(checker):
    # LangChain's prompts show page_content (create_stuff_documents_chain's "{page_content}"):
    # the metadata stay fact attributes; a claim from them alone is not supported.
    document = Document(page_content=CREATE, metadata={"description": DESCRIPTION}, id="d")
    report = checker.check(f"{CREATE} {DESCRIPTION}", [document])
    assert report.grounding_sources[0].text == CREATE
    assert report.grounding_sources[0].metadata == {"description": DESCRIPTION}
    assert [c.status for c in report.claims] == ["supported", "unsupported"]

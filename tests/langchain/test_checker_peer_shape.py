"""GroundingChecker in langchain-google-community's call shape (issue #17): the answer alone,
the documents in ``config["configurable"]["documents"]``, the report back, on the emulator."""

from __future__ import annotations

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda

from grounding_core import ConfigurationError, GroundingReport, UngroundedAnswerError
from langchain_grounding import GroundingChecker

from .conftest import PROMPT, ContextEchoChatModel, format_docs

PROJECT = "test-project"
PARIS = "Paris is the capital of France."
LYON = "Lyon is a city in France."
MOON = "The moon is made of cheese."
# An empty document in the middle: it is not sent, and shifts no citation.
DOCS = [
    Document(id="doc-paris", page_content=PARIS, metadata={"title": "Paris", "rank": 1}),
    Document(page_content=""),
    Document(id="doc-lyon", page_content=LYON, metadata={"title": "Lyon"}),
]
# Lyon (source 2) is cited first: Google's citation_indices would say [0] for it.
ANSWER = f"{LYON}  {MOON}\n{PARIS}"
MARKED = f"{LYON}[2]  {MOON}\n{PARIS}[0]"


@pytest.fixture
def checker(emulator):
    return GroundingChecker(project_id=PROJECT, emulator_host=emulator.address)


@pytest.fixture
def peer_style(checker):
    # LangChain also puts its own keys in configurable: only "documents" is read.
    return checker.with_config(configurable={"documents": DOCS, "thread_id": "t-1", "user": 7})


def assert_report(report, answer=ANSWER, marked=MARKED):
    assert isinstance(report, GroundingReport)
    assert report.result is not None
    assert report.result.answer == answer
    assert report.support_score == pytest.approx(2 / 3)
    assert report.answer_with_citations == marked
    assert [(c.text, c.status, c.sources) for c in report.claims] == [
        (LYON, "supported", (DOCS[2],)),
        (MOON, "unsupported", ()),
        (PARIS, "supported", (DOCS[0],)),
    ]
    for claim in report.claims:
        assert answer[claim.start : claim.end] == claim.text
    assert [c.claim.citation_indices for c in report.claims] == [(0,), (), (1,)]
    assert [chunk.source_index for chunk in report.result.cited_chunks] == [2, 0]
    assert report.source_ids == ("doc-paris", "1", "doc-lyon")
    assert report.sources == tuple(DOCS)
    assert (report.passed, report.error, report.skipped_reason) == (False, None, None)


def test_invoke_returns_the_report(peer_style):
    assert_report(peer_style.invoke(ANSWER))


def test_config_given_to_invoke_works_as_with_config(checker):
    assert_report(checker.invoke(ANSWER, config={"configurable": {"documents": DOCS}}))


def test_an_aimessage_answer(peer_style):
    assert_report(peer_style.invoke(AIMessage(content=ANSWER)))


def test_strings_as_documents(checker):
    report = checker.with_config(configurable={"documents": (PARIS, LYON)}).invoke(
        f"{PARIS} {LYON}"
    )
    assert report.answer_with_citations == f"{PARIS}[0] {LYON}[1]"
    assert [c.sources for c in report.claims] == [(PARIS,), (LYON,)]
    assert report.support_score == pytest.approx(1.0)


async def test_ainvoke_returns_the_report(peer_style):
    assert_report(await peer_style.ainvoke(ANSWER))


def test_batch(peer_style):
    reports = peer_style.batch([ANSWER, PARIS, ""])
    assert_report(reports[0])
    assert reports[1].answer_with_citations == f"{PARIS}[0]"
    assert reports[1].passed
    # An empty answer is a report too: nothing sent, nothing to mark.
    assert (reports[2].answer_with_citations, reports[2].skipped_reason) == (
        "",
        "the answer is empty: there is nothing to check",
    )


async def test_abatch(peer_style):
    reports = await peer_style.abatch([ANSWER, LYON])
    assert_report(reports[0])
    assert reports[1].answer_with_citations == f"{LYON}[2]"


def test_at_the_end_of_a_chain(checker):
    # The peer's documented chain: prompt | llm | StrOutputParser() | checker.with_config(...).
    chain = (
        RunnableLambda(lambda question: {"context": format_docs(DOCS[::2]), "question": question})
        | PROMPT
        | ContextEchoChatModel(documents=2, extra=MOON)
        | StrOutputParser()
        | checker.with_config(configurable={"documents": DOCS})
    )
    report = chain.invoke("Where is Paris?")
    assert report.result.answer == f"{PARIS} {LYON} {MOON}"
    assert report.answer_with_citations == f"{PARIS}[0] {LYON}[2] {MOON}"
    assert [c.status for c in report.claims] == ["supported", "supported", "unsupported"]


async def test_at_the_end_of_a_chain_async(checker):
    chain = StrOutputParser() | checker.with_config(configurable={"documents": DOCS})
    report = await chain.ainvoke(AIMessage(content=ANSWER))
    assert_report(report)


class Ends(BaseCallbackHandler):
    def __init__(self):
        self.outputs = []

    def on_chain_end(self, outputs, **kwargs):
        self.outputs.append(outputs)


def test_the_run_machinery_sees_the_report(peer_style):
    ends = Ends()
    report = peer_style.invoke(ANSWER, config={"callbacks": [ends]})
    assert ends.outputs == [report]


def test_raise_policy_raises_with_the_report(emulator):
    raising = GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, on_ungrounded="raise"
    ).with_config(configurable={"documents": DOCS})
    with pytest.raises(UngroundedAnswerError, match=r"1 claim\(s\) unsupported: 'The moon") as info:
        raising.invoke(ANSWER)
    assert_report(info.value.result)
    assert raising.invoke(PARIS).passed  # a grounded answer passes and comes back


def test_fallback_policy_is_refused_before_any_call(emulator):
    fallback = GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, on_ungrounded="fallback"
    )
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE")  # consumed by any call
    with pytest.raises(ConfigurationError, match="has no answer to replace: pass a dict"):
        fallback.with_config(configurable={"documents": DOCS}).invoke(ANSWER)
    assert emulator.faults.pending == 1
    # The dict shape keeps its fallback answer.
    emulator.faults.clear()
    out = fallback.invoke({"answer": ANSWER, "documents": DOCS})
    assert (out["answer"], out["original_answer"]) == (fallback.fallback_answer, ANSWER)


def test_a_dict_input_keeps_its_documents_and_its_dict_output(peer_style):
    out = peer_style.invoke({"answer": PARIS, "documents": [Document(page_content=LYON)]})
    assert set(out) == {"answer", "documents", "grounding"}
    assert out["grounding"].answer_with_citations == PARIS  # checked against Lyon alone
    assert out["grounding"].claims[0].status == "unsupported"


def test_the_answer_with_citations_in_an_aimessage_dict(checker):
    out = checker.invoke({"answer": AIMessage(content=ANSWER), "documents": DOCS})
    assert out["grounding"].answer_with_citations == MARKED
    # Not in the metadata: it is the answer again, derived from the claims' spans.
    assert "answer_with_citations" not in out["answer"].response_metadata["grounding"]

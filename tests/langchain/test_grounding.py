"""GroundingChecker, with_grounding and the callback handlers in real LCEL chains."""

import asyncio
from uuid import uuid4

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableParallel, RunnablePassthrough
from pydantic import ValidationError

from grounding_core import (
    DEFAULT_FALLBACK_ANSWER,
    ConfigurationError,
    InputError,
    ServiceUnavailableError,
    UngroundedAnswerError,
)
from langchain_grounding import (
    AsyncGroundingCallbackHandler,
    DiscoveryEngineRetriever,
    GroundingCallbackHandler,
    GroundingChecker,
    with_grounding,
)

from .conftest import PROMPT, ContextEchoChatModel, core_error, format_docs

PROJECT = "test-project"
UNSUPPORTED = "The lighthouse was painted bright purple in 1850."

UNGROUNDED = r"support score 0\.50 is below the required 1\.00; 1 claim\(s\) unsupported"


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="test-docs", emulator_host=emulator.address, k=2
    )


@pytest.fixture
def checker(emulator):
    return GroundingChecker(project_id=PROJECT, emulator_host=emulator.address)


def rag_chain(retriever, extra=""):
    """prompt | fake chat model | parser, fed by the retriever: the usual LCEL RAG shape."""
    llm = ContextEchoChatModel(extra=extra)
    return (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | llm
        | StrOutputParser()
    )


def rag_dict_chain(retriever, extra=""):
    """A RAG chain whose output keeps the context: {"context", "question", "answer"}."""
    llm = ContextEchoChatModel(extra=extra)
    answer = (
        RunnablePassthrough.assign(context=lambda x: format_docs(x["context"]))
        | PROMPT
        | llm
        | StrOutputParser()
    )
    return RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(answer=answer)


def assert_spans_slice(answer, report):
    encoded = answer.encode()
    for claim in report.claims:
        assert answer[claim.start : claim.end] == claim.text
        assert encoded[claim.claim.byte_start : claim.claim.byte_end].decode() == claim.text


def test_checker_step_on_a_rag_chain(retriever, checker):
    out = (rag_dict_chain(retriever) | checker).invoke("lighthouse keeper number 131")
    report = out["grounding"]
    assert out["answer"].startswith("Section 1 of document 13")
    assert report.support_score == pytest.approx(1.0)
    assert report.passed
    (claim,) = report.claims
    assert claim.status == "supported"
    assert claim.sources[0] is out["context"][0]
    assert_spans_slice(out["answer"], report)
    assert "[1]" in report.markdown()
    assert "https://example.com/paging/13" in report.markdown()


def test_unsupported_claim_is_caught(retriever, checker):
    out = (rag_dict_chain(retriever, extra=UNSUPPORTED) | checker).invoke(
        "lighthouse keeper number 131"
    )
    report = out["grounding"]
    assert [c.status for c in report.claims] == ["supported", "unsupported"]
    assert report.unsupported_claims[0].text == UNSUPPORTED
    assert report.unsupported_claims[0].sources == ()
    assert report.support_score == pytest.approx(0.5)
    assert not report.passed
    assert "**[unsupported]**" in report.markdown()


def test_non_ascii_answer_spans_slice_exactly(retriever, checker):
    out = (rag_dict_chain(retriever) | checker).invoke("東京都は日本の首都")
    answer = out["answer"]
    assert "東京都は日本の首都です。" in answer
    report = out["grounding"]
    assert report.claims
    assert_spans_slice(answer, report)
    assert report.claims[0].status == "supported"


def test_emoji_answer_with_aimessage(checker):
    docs = [
        Document(
            page_content="Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
            metadata={"source": "https://example.com/rockets", "rank": 1, "tags": ["a"]},
        )
    ]
    message = AIMessage(content="Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.")
    out = checker.invoke({"answer": message, "documents": docs})
    assert isinstance(out["answer"], AIMessage)
    grounding = out["answer"].response_metadata["grounding"]
    assert grounding["support_score"] == pytest.approx(1.0)
    claim = grounding["claims"][0]
    assert message.text[claim["start"] : claim["end"]] == claim["text"]
    assert claim["byte_end"] - claim["byte_start"] == len(claim["text"].encode())
    assert claim["source_indices"] == [0]
    # a Document without an id is named by its position (docs/metadata.md)
    assert claim["source_ids"] == grounding["source_ids"] == ["0"]


def test_metadata_names_documents_by_their_ids(checker):
    docs = [
        Document(id="doc-moon", page_content="The Moon orbits the Earth."),
        Document(page_content="Paris is the capital of France."),
    ]
    message = AIMessage(content="Paris is the capital of France.")
    out = checker.invoke({"answer": message, "documents": docs})
    grounding = out["answer"].response_metadata["grounding"]
    assert grounding == out["grounding"].metadata()
    assert grounding["source_ids"] == ["doc-moon", "1"]
    assert grounding["claims"][0]["source_ids"] == ["1"]
    assert out["grounding"].source_ids == ("doc-moon", "1")


def test_empty_document_does_not_shift_citations(checker):
    docs = [
        Document(page_content=""),
        Document(page_content="Paris is the capital of France.", metadata={"title": "Paris"}),
    ]
    out = checker.invoke({"answer": "Paris is the capital of France.", "documents": docs})
    assert out["grounding"].claims[0].sources == (docs[1],)


def test_with_grounding_wraps_a_string_chain(retriever, checker):
    grounded = with_grounding(rag_chain(retriever, extra=UNSUPPORTED), checker)
    out = grounded.invoke("lighthouse keeper number 245")
    assert out["answer"].startswith("Section 5 of document 24")
    assert out["documents"][0].metadata["document_id"] == "page-24"
    assert [c.status for c in out["grounding"].claims] == ["supported", "unsupported"]
    assert_spans_slice(out["answer"], out["grounding"])


async def test_with_grounding_async(retriever, checker):
    grounded = with_grounding(rag_chain(retriever), checker)
    out = await grounded.ainvoke("lighthouse keeper number 245")
    assert out["grounding"].support_score == pytest.approx(1.0)


class RunNames(BaseCallbackHandler):
    def __init__(self):
        self.started = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.started.append(kwargs.get("name"))


def test_runs_go_through_langchain_callbacks(retriever, checker):
    names = RunNames()
    with_grounding(rag_chain(retriever), checker).invoke(
        "lighthouse keeper number 131", config={"callbacks": [names]}
    )
    assert names.started[0] == "GroundedChain"
    assert "GroundingChecker" in names.started


def test_policies(retriever, emulator):
    chain = rag_dict_chain(retriever, extra=UNSUPPORTED)
    raising = GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, on_ungrounded="raise"
    )
    with pytest.raises(UngroundedAnswerError, match=UNGROUNDED) as info:
        (chain | raising).invoke("lighthouse keeper number 131")
    assert info.value.result.unsupported_claims
    fallback = GroundingChecker(
        project_id=PROJECT,
        emulator_host=emulator.address,
        on_ungrounded="fallback",
        fallback_answer="No grounded answer.",
    )
    out = (chain | fallback).invoke("lighthouse keeper number 131")
    assert out["answer"] == "No grounded answer."
    assert out["original_answer"].endswith(UNSUPPORTED)


@pytest.mark.parametrize(
    ("value", "message", "field", "limit"),
    [
        ("just a string", r"answer alone \(a string\), without the documents", "input", None),
        (AIMessage("x"), r"answer alone \(a message, AIMessage\)", "input", None),
        (42, "takes a dict", "input", None),
        ({"answer": "x"}, "no documents to check", "documents", None),
        ({"documents": []}, "no answer in the output", "answer", None),
        ({"answer": 42, "documents": ["fact"]}, "must be a str or an AIMessage", "answer", None),
        (
            {"answer": "x", "documents": [1]},
            r"documents\[0\] must be a Document",
            "documents",
            None,
        ),
        ({"answer": "x", "documents": ["f"] * 201}, "201 non-empty sources", "facts", 200),
        ({"answer": "x", "documents": ["f" * 20_000]}, "20,000", "facts[0].fact_text", 10_000),
    ],
)
def test_bad_input_is_refused_clearly(checker, value, message, field, limit):
    with pytest.raises(InputError, match=message) as info:
        checker.invoke(value)
    assert (info.value.field, info.value.limit) == (field, limit)


def test_a_plain_string_chain_says_what_to_pass(retriever, checker):
    # StrOutputParser gives langchain_core's TextAccessor, a str: the answer without documents.
    chain = rag_chain(retriever) | checker
    with pytest.raises(InputError) as excinfo:
        chain.invoke("lighthouse keeper number 131")
    message = str(excinfo.value)
    assert message.startswith(
        "GroundingChecker got the answer alone (a string), without the documents to check it "
        "against: pass a dict with both"
    )
    assert "with_grounding(chain, checker)" in message
    assert "TextAccessor" not in message
    assert excinfo.value.field == "input"


async def test_abatch_of_twenty_questions(retriever, checker):
    questions = [f"lighthouse keeper number {n * 10 + 2}" for n in range(10, 30)]
    chain = rag_dict_chain(retriever) | checker
    outputs = await chain.abatch(questions)
    assert len(outputs) == 20
    for number, out in enumerate(outputs, start=10):
        assert out["answer"].startswith(f"Section 2 of document {number:02d}")
        report = out["grounding"]
        assert report.support_score == pytest.approx(1.0)
        cited = {d.metadata["document_id"] for d in report.claims[0].sources}
        assert f"page-{number:02d}" in cited
        assert_spans_slice(out["answer"], report)


def test_callback_handler_on_a_plain_chain(retriever, emulator):
    seen = []
    handler = GroundingCallbackHandler(
        project_id=PROJECT, emulator_host=emulator.address, on_report=lambda r, rep: seen.append(r)
    )
    run_id = uuid4()
    answer = rag_chain(retriever, extra=UNSUPPORTED).invoke(
        "lighthouse keeper number 131", config={"callbacks": [handler], "run_id": run_id}
    )
    report = handler.reports[run_id]
    assert seen == [run_id]
    assert handler.latest is report
    assert [c.status for c in report.claims] == ["supported", "unsupported"]
    assert report.claims[0].sources[0].metadata["document_id"] == "page-13"
    assert_spans_slice(answer, report)


def test_callback_handler_under_batch_keeps_runs_apart(retriever, emulator):
    handler = GroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    questions = [f"lighthouse keeper number {n * 10 + 4}" for n in range(10, 16)]
    answers = rag_chain(retriever).batch(questions, config={"callbacks": [handler]})
    assert len(handler.reports) == 6
    by_answer = {r.result.answer: r for r in handler.reports.values()}
    for number, answer in enumerate(answers, start=10):
        report = by_answer[answer]
        cited = {d.metadata["document_id"] for d in report.claims[0].sources}
        assert f"page-{number:02d}" in cited


async def test_async_callback_handler_under_abatch(retriever, emulator):
    handler = AsyncGroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    questions = [f"lighthouse keeper number {n * 10 + 1}" for n in range(10, 30)]
    answers = await rag_chain(retriever).abatch(questions, config={"callbacks": [handler]})
    assert len(handler.reports) == 20
    by_answer = {r.result.answer: r for r in handler.reports.values()}
    for number, answer in enumerate(answers, start=10):
        report = by_answer[answer]
        assert report.support_score == pytest.approx(1.0)
        cited = {d.metadata["document_id"] for d in report.claims[0].sources}
        assert f"page-{number:02d}" in cited


def test_callback_never_breaks_the_chain(retriever, emulator):
    handler = GroundingCallbackHandler(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    answer = rag_chain(retriever).invoke(
        "lighthouse keeper number 131", config={"callbacks": [handler]}
    )
    assert answer.startswith("Section 1 of document 13")
    report = handler.latest
    assert report.result is None
    assert "ServiceUnavailableError" in report.error
    assert not report.passed


def test_checker_errors_name_the_cause(checker, emulator):
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=10)
    quick = checker.model_copy(update={"retry": None})
    with pytest.raises(ServiceUnavailableError, match="CheckGrounding on projects/test-project"):
        quick.invoke({"answer": "x", "documents": ["y"]})


def test_the_check_follows_the_fields(checker):
    check = checker.grounding_check
    assert check.grounding_config == (
        "projects/test-project/locations/global/groundingConfigs/default_grounding_config"
    )
    assert (check.spec.citation_threshold, check.spec.enable_claim_level_score) == (0.6, False)
    assert (check.min_support_score, check.on_ungrounded, check.on_error) == (
        1.0,
        "annotate",
        "raise",
    )
    assert check.fallback_answer == checker.fallback_answer == DEFAULT_FALLBACK_ANSWER
    assert check.connection is checker.connection
    copied = checker.model_copy(update={"retry": None, "min_support_score": 0.9})
    assert copied.grounding_check.connection.call_options.retry is None
    assert copied.grounding_check.min_support_score == 0.9
    assert checker.grounding_check is check  # the original is left alone
    copied.on_ungrounded = "fallback"
    assert copied.grounding_check.on_ungrounded == "fallback"
    for name in ("min_support_score", "citation_threshold"):
        with pytest.raises(ValidationError) as info:
            GroundingChecker(project_id=PROJECT, **{name: 1.5})
        error = core_error(info.value)
        assert isinstance(error, ConfigurationError)
        assert str(error).startswith(f"{name} must be a number between 0 and 1")


def test_checker_retries_transient_failures(checker, emulator):
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=2)
    out = checker.invoke({"answer": "Paris is in France.", "documents": ["Paris is in France."]})
    assert out["grounding"].passed


def test_async_handler_in_concurrent_runs(retriever, emulator):
    handler = AsyncGroundingCallbackHandler(project_id=PROJECT, emulator_host=emulator.address)
    chain = rag_chain(retriever)

    async def main():
        return await asyncio.gather(
            chain.ainvoke("lighthouse keeper number 11", config={"callbacks": [handler]}),
            chain.ainvoke("lighthouse keeper number 21", config={"callbacks": [handler]}),
        )

    first, second = asyncio.run(main())
    assert len(handler.reports) == 2
    answers = {r.result.answer for r in handler.reports.values()}
    assert answers == {first, second}

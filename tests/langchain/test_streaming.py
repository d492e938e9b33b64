"""Streaming through the LangChain components: the checker and with_grounding pass chunks
through and check claims while the answer streams; the answer Runnables stream
StreamAnswerQuery. Everything against the session emulator, through Google's clients."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.output_parsers import StrOutputParser
from langchain_core.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough
from pydantic import ValidationError

from grounding_core import GroundingReport, InputError, UngroundedAnswerError
from langchain_grounding import (
    DiscoveryEngineAnswer,
    DiscoveryEngineRetriever,
    ExtractiveChatModel,
    GroundingChecker,
    with_grounding,
)

from .conftest import PROMPT, first_sentence, format_docs

PROJECT = "test-project"
QUESTION = "How does the with statement work?"
MADE_UP = "The with statement was added to Python by the Moon Council in 1066."
DOCS = [
    Document("Zürich liegt in der Schweiz. 東京は日本の首都です。", id="a"),
    Document("The emoji 😀 means joy. مرحبا بالعالم هو تحية.", id="b"),
]
UNICODE_ANSWER = "Zürich liegt in der Schweiz. 東京は日本の首都です。 The emoji 😀 means joy."


def checker(emulator, **fields):
    return GroundingChecker(
        project_id=PROJECT, emulator_host=emulator.address, retry=None, **fields
    )


@pytest.fixture
def retriever(emulator):
    return DiscoveryEngineRetriever(
        project_id=PROJECT, data_store_id="python-docs", k=3, emulator_host=emulator.address
    )


@pytest.fixture
def answer(retriever):
    """A five-sentence answer from the retrieved documents whose second sentence is made up."""
    documents = retriever.invoke(QUESTION)
    supported = [first_sentence(d.page_content) for d in documents]
    return " ".join([supported[0], MADE_UP, *supported[1:], supported[0]])


def model(text, delay=0.0):
    """A stand-in model streaming ``text`` word by word (``delay`` seconds apart, async)."""
    words = text.split(" ")

    def tokens(_):
        for number, word in enumerate(words):
            yield f" {word}" if number else word

    async def atokens(_):
        for token in tokens(None):
            await asyncio.sleep(delay)
            yield token

    return RunnableLambda(tokens, afunc=atokens)


def rag(retriever, text, delay=0.0):
    return RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=model(text, delay)
    )


async def test_astream_events_flag_the_made_up_claim_before_the_last_token(
    emulator, retriever, answer
):
    chain = rag(retriever, answer, delay=0.01) | checker(
        emulator, check_while_streaming=True, claim_min_chars=10
    )
    events = [event async for event in chain.astream_events(QUESTION, version="v2")]
    answer_tokens = [
        i
        for i, e in enumerate(events)
        if e["event"] == "on_chain_stream"
        and e["name"] == "GroundingChecker"
        and "answer" in e["data"]["chunk"]
    ]
    verdicts = [
        (i, e["data"])
        for i, e in enumerate(events)
        if e["event"] == "on_custom_event" and e["name"] == "grounding_claim"
    ]
    assert len(answer_tokens) == len(answer.split(" "))
    made_up = [(i, v) for i, v in verdicts if v["status"] == "unsupported"]
    assert [v["text"] for _, v in made_up] == [MADE_UP]
    assert made_up[0][0] < answer_tokens[-1]  # flagged while the answer was still streaming
    for _, verdict in verdicts:
        assert answer[verdict["start"] : verdict["end"]] == verdict["text"]
        assert (
            answer.encode()[verdict["byte_start"] : verdict["byte_end"]].decode()
            == (verdict["text"])
        )
    assert sorted(v["index"] for _, v in verdicts) == list(range(5))
    assert [v["status"] for _, v in sorted(verdicts, key=lambda p: p[1]["index"])] == [
        "supported",
        "unsupported",
        "supported",
        "supported",
        "supported",
    ]
    (final,) = [
        e["data"]["chunk"]
        for e in events
        if e["event"] == "on_chain_stream"
        and e["name"] == "GroundingChecker"
        and "grounding" in e["data"]["chunk"]
    ]
    report = final["grounding"]
    assert report.result.answer == answer
    assert [c.text for c in report.unsupported_claims] == [MADE_UP]
    end = [e for e in events if e["event"] == "on_chain_end" and e["name"] == "GroundingChecker"]
    assert len(end[0]["data"]["output"]["claim_verdicts"]) == 5


def test_chunks_pass_through_in_order_then_the_report(emulator, retriever, answer):
    plain = rag(retriever, answer)
    bare = [c for c in plain.stream(QUESTION)]
    chunks = list((plain | checker(emulator)).stream(QUESTION))
    # every chunk, unchanged; the answer's in order (RunnableParallel's branches race); no
    # verdicts unasked
    assert len(chunks) == len(bare) + 1
    assert all(chunk in chunks[:-1] for chunk in bare)
    assert [c for c in chunks if "answer" in c] == [c for c in bare if "answer" in c]
    assert list(chunks[-1]) == ["grounding"]
    report = chunks[-1]["grounding"]
    assert isinstance(report, GroundingReport)
    assert report.result.answer == answer
    assert [c.text for c in report.unsupported_claims] == [MADE_UP]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    invoked = (plain | checker(emulator)).invoke(QUESTION)
    assert merged["answer"] == invoked["answer"] == answer
    assert merged["grounding"].support_score == invoked["grounding"].support_score


def test_sync_claim_verdicts_and_unicode_across_chunk_boundaries(emulator):
    def chunks(_):
        yield {"documents": DOCS}
        for character in UNICODE_ANSWER:  # multi-byte characters each their own chunk
            yield {"answer": character}

    stream = RunnableLambda(chunks) | checker(
        emulator, check_while_streaming=True, claim_min_chars=5
    )
    output = list(stream.stream("q"))
    answer_chunks = [c["answer"] for c in output if "answer" in c]
    assert "".join(answer_chunks) == UNICODE_ANSWER
    verdicts = sorted(
        (v for c in output for v in c.get("claim_verdicts", [])), key=lambda v: v.index
    )
    assert [v.text for v in verdicts] == [
        "Zürich liegt in der Schweiz.",
        "東京は日本の首都です。",
        "The emoji 😀 means joy.",
    ]
    assert [v.status for v in verdicts] == ["supported"] * 3
    encoded = UNICODE_ANSWER.encode()
    for verdict in verdicts:
        assert UNICODE_ANSWER[verdict.start : verdict.end] == verdict.text
        assert encoded[verdict.byte_start : verdict.byte_end].decode() == verdict.text
    assert [v.source_ids for v in verdicts] == [("a",), ("a",), ("b",)]
    assert output[-1]["grounding"].result.answer == UNICODE_ANSWER


async def test_cancelled_mid_stream(emulator, retriever, answer):
    closed = []

    async def tokens(_):
        try:
            for word in answer.split(" "):
                await asyncio.sleep(0.005)
                yield word + " "
        finally:
            closed.append(True)

    chain = RunnableParallel(context=retriever, question=RunnablePassthrough()).assign(
        answer=RunnableLambda(tokens)
    ) | checker(emulator, check_while_streaming=True, claim_min_chars=10)
    before = len(asyncio.all_tasks())
    stream = chain.astream(QUESTION)
    seen = []
    async for chunk in stream:
        seen.append(chunk)
        if len([c for c in seen if "answer" in c]) == 15:
            break
    await stream.aclose()
    await asyncio.sleep(0.05)
    assert closed == [True]  # the model's stream was closed too
    assert not any("grounding" in c for c in seen)
    assert len(asyncio.all_tasks()) == before  # no check left running


async def test_a_failed_claim_check_is_recorded_and_the_stream_goes_on(emulator):
    async def chunks(_):
        yield {"documents": DOCS}
        for word in UNICODE_ANSWER.split(" "):
            yield {"answer": word + " "}

    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    stream = RunnableLambda(chunks) | checker(
        emulator, check_while_streaming=True, claim_min_chars=5, max_concurrent_checks=1
    )
    output = [chunk async for chunk in stream.astream("q")]
    verdicts = sorted(
        (v for c in output for v in c.get("claim_verdicts", [])), key=lambda v: v.index
    )
    assert [v.status for v in verdicts] == ["error", "supported", "supported"]
    assert "UNAVAILABLE" in verdicts[0].error
    assert "".join(c["answer"] for c in output if "answer" in c).strip() == UNICODE_ANSWER
    assert output[-1]["grounding"].error is None  # the final check ran


@pytest.mark.parametrize("policy", ["stop", "fallback"])
async def test_stop_at_the_first_unsupported_claim(emulator, retriever, answer, policy):
    chain = rag(retriever, answer, delay=0.01) | checker(
        emulator,
        check_while_streaming=True,
        claim_min_chars=10,
        on_unsupported_claim=policy,
        fallback_answer="No grounded answer.",
    )
    output = [chunk async for chunk in chain.astream(QUESTION)]
    streamed = "".join(c["answer"] for c in output if "answer" in c)
    assert MADE_UP in streamed
    assert len(streamed) < len(answer)  # the rest of the answer never came
    final = output[-1]
    assert final["stopped_at_claim"].text == MADE_UP
    assert final["grounding"].result.answer == streamed
    assert final.get("fallback_answer") == ("No grounded answer." if policy == "fallback" else None)


def test_raise_policy_raises_after_the_report(emulator, retriever, answer):
    chunks = []
    stream = (rag(retriever, answer) | checker(emulator, on_ungrounded="raise")).stream(QUESTION)

    def drain():
        for chunk in stream:
            chunks.append(chunk)

    with pytest.raises(UngroundedAnswerError):
        drain()
    assert "grounding" in chunks[-1]
    fallback = rag(retriever, answer) | checker(emulator, on_ungrounded="fallback")
    final = list(fallback.stream(QUESTION))[-1]
    assert final["fallback_answer"] == fallback.last.fallback_answer


async def test_an_answer_alone_streams_the_peers_response(emulator):
    documents = {"configurable": {"documents": DOCS}}
    chain = RunnableLambda(lambda _: UNICODE_ANSWER) | checker(
        emulator, check_while_streaming=True, claim_min_chars=5
    ).with_config(documents)
    (response,) = list(chain.stream("q"))
    assert isinstance(response, GroundingChecker.CheckGroundingResponse)
    assert " ".join(c["claim_text"] for c in response.claims) == UNICODE_ANSWER
    events = [e async for e in chain.astream_events("q", version="v2")]
    verdicts = [e["data"] for e in events if e["event"] == "on_custom_event"]
    assert sorted(v["text"] for v in verdicts) == sorted(
        ["Zürich liegt in der Schweiz.", "東京は日本の首都です。", "The emoji 😀 means joy."]
    )


def test_with_grounding_streams(emulator, retriever):
    llm = ExtractiveChatModel(invent=MADE_UP)
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | llm
        | StrOutputParser()
    )
    grounded = with_grounding(
        chain, project_id=PROJECT, emulator_host=emulator.address, check_while_streaming=True
    )
    output = list(grounded.stream(QUESTION))
    keys = [next(iter(c)) for c in output]
    assert keys[0] == "documents"
    assert keys[1] == "answer"
    assert len(output[0]["documents"]) == 3
    assert keys[-1] == "grounding"
    streamed = "".join(c["answer"] for c in output if "answer" in c)
    assert streamed == grounded.invoke(QUESTION)["answer"]
    assert streamed.endswith(MADE_UP)
    verdicts = [v for c in output for v in c.get("claim_verdicts", [])]
    assert [v.text for v in verdicts if v.unsupported] == [MADE_UP]
    assert output[-1]["grounding"].result.answer == streamed


async def test_with_grounding_astream(emulator, retriever):
    chain = (
        {"context": retriever | format_docs, "question": RunnablePassthrough()}
        | PROMPT
        | ExtractiveChatModel()
        | StrOutputParser()
    )
    grounded = with_grounding(chain, project_id=PROJECT, emulator_host=emulator.address)
    output = [c async for c in grounded.astream(QUESTION)]
    assert next(iter(output[0])) == "documents"
    assert output[-1]["grounding"].passed
    assert len([c for c in output if "answer" in c]) > 5


def test_bad_streaming_settings(emulator):
    for fields in (
        {"on_unsupported_claim": "halt"},
        {"max_concurrent_checks": 0},
        {"claim_min_chars": 0},
    ):
        with pytest.raises(ValidationError, match=next(iter(fields))):
            checker(emulator, **fields)
    with pytest.raises(InputError, match="empty stream") as info:
        list(checker(emulator).transform(iter([])))
    assert info.value.field == "input"


async def test_answer_runnable_streams(emulator):
    answerer = DiscoveryEngineAnswer(
        project_id=PROJECT, engine_id="python-docs-app", emulator_host=emulator.address
    )
    whole = answerer.invoke(QUESTION)
    chunks = list(answerer.stream(QUESTION))
    assert len(chunks) >= 3
    assert all(list(c) == ["answer"] for c in chunks[:-1])
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.keys() == whole.keys()
    assert merged["answer"] == whole["answer"]
    assert merged["citations"] == whole["citations"]
    assert [d.id for d in merged["documents"]] == [d.id for d in whole["documents"]]
    achunks = [c async for c in answerer.astream({"query": QUESTION, "session": "-"})]
    assert "".join(c["answer"] for c in achunks) == whole["answer"]
    assert achunks[-1]["session"].startswith("projects/test-project/")
    refused = DiscoveryEngineAnswer(
        project_id=PROJECT,
        engine_id="python-docs-app",
        emulator_host=emulator.address,
        include_grounding_supports=True,
    )
    with pytest.raises(InputError, match="not available for streamed answers") as info:
        list(refused.stream(QUESTION))
    assert info.value.field == "include_grounding_supports"

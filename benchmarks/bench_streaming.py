"""Streaming with grounding: how early a made-up claim is flagged, and what the checker costs a
stream.

On one emulator (a child process), a LangChain RAG chain (our retriever, then a stand-in model
streaming a 10-sentence answer word by word, ``TOKEN_DELAY`` apart, like a model at about 200
tokens per second) is streamed with ``astream`` (Google's async client), the contenders taking
turns (``benchmarks.timing.interleaved``). The answer's sentences are the retrieved documents'
own, except the second, which is made up.

- Time to the first verdict on the made-up claim: ``rag | GroundingChecker(
  check_while_streaming=True)`` (the ``claim_verdicts`` chunk that flags it) against
  ``rag | GroundingChecker()``, whose only verdict is the final report, after the last token.
- Token latency: the time to the first and to the last answer token through the checker (with
  and without claim checks) against the bare chain, the model streaming without delay, so that
  only our work shows; and the last token with claim checks at the model's pace (do the checks
  hold tokens back?).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from langchain_core.runnables import (
    Runnable,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)

import langchain_grounding as lc
from benchmarks.common import Row
from benchmarks.emulator_process import EmulatorProcess
from benchmarks.timing import interleaved, median_ms
from grounding_emulator import BUILTIN_DATA_STORE

NAME = "streaming"
PROJECT = "bench"
DATA_STORE = BUILTIN_DATA_STORE
QUESTION = "How does the with statement work?"
MADE_UP = "The with statement was added to Python by the Moon Council in 1066."
TOKEN_DELAY = 0.005
SENTENCES = 10


def _sentences(documents: list[Any]) -> list[str]:
    """Prose sentences of the documents, in order (headings and code left out)."""
    found = []
    for document in documents:
        for paragraph in document.page_content.split("\n\n"):
            if paragraph.startswith(("#", " ", "`")):
                continue
            for sentence in paragraph.replace("\n", " ").split(". "):
                sentence = sentence.strip().rstrip(".")
                if len(sentence) > 30 and sentence[0].isupper():
                    found.append(sentence + ".")
    return found


def _model(text: str, delay: float) -> Runnable[Any, str]:
    words = text.split(" ")

    async def tokens(_: Any) -> AsyncIterator[str]:
        for number, word in enumerate(words):
            if delay:
                await asyncio.sleep(delay)
            yield f" {word}" if number else word

    return RunnableLambda(tokens)


async def _until(chain: Runnable[Any, Any], done: Callable[[Any], bool]) -> tuple[float]:
    """Seconds from the start of ``chain.astream`` to the first chunk ``done`` accepts."""
    start = time.perf_counter()
    async for chunk in chain.astream(QUESTION):
        if done(chunk):
            return (time.perf_counter() - start,)
    raise AssertionError("the stream ended before the awaited chunk")


def _flags_made_up(chunk: Any) -> bool:
    verdicts = chunk.get("claim_verdicts", [])
    if any(v.unsupported for v in verdicts):
        return True
    report = chunk.get("grounding")
    return report is not None and any(c.text == MADE_UP for c in report.unsupported_claims)


async def _answer_tokens(chain: Runnable[Any, Any]) -> tuple[float, float]:
    """Seconds to the first and to the last answer token."""
    start = time.perf_counter()
    first = last = 0.0
    async for chunk in chain.astream(QUESTION):
        if "answer" in chunk:
            last = time.perf_counter() - start
            first = first or last
    return first, last


def run(quick: bool = False) -> list[Row]:
    """Time to the first verdict, and token latency through the checker (``quick``: a few
    runs each)."""
    rounds, block = (2, 1) if quick else (10, 2)
    loop = asyncio.new_event_loop()
    marks: dict[str, list[float]] = {}

    def measured(name: str, coroutine: Callable[[], Any]) -> Callable[[], None]:
        def call() -> None:
            seconds_each = loop.run_until_complete(coroutine())
            for suffix, seconds in zip(("", " last"), seconds_each, strict=False):
                marks.setdefault(name + suffix, []).append(seconds)

        return call

    try:
        with EmulatorProcess() as emulator:
            connection = {"project_id": PROJECT, "emulator_host": emulator.address}
            retriever = lc.DiscoveryEngineRetriever(data_store_id=DATA_STORE, k=5, **connection)
            supported = _sentences(retriever.invoke(QUESTION))[: SENTENCES - 1]
            answer = " ".join([supported[0], MADE_UP, *supported[1:]])

            def rag(delay: float) -> Runnable[Any, Any]:
                inputs = RunnableParallel(context=retriever, question=RunnablePassthrough())
                return inputs.assign(answer=_model(answer, delay))

            watching = lc.GroundingChecker(check_while_streaming=True, **connection)
            at_end = lc.GroundingChecker(**connection)
            verdict_contenders = {
                "claim by claim": measured(
                    "claim by claim", lambda: _until(rag(TOKEN_DELAY) | watching, _flags_made_up)
                ),
                "at the end": measured(
                    "at the end", lambda: _until(rag(TOKEN_DELAY) | at_end, _flags_made_up)
                ),
            }
            latency_contenders = {
                name: measured(name, lambda chain=chain: _answer_tokens(chain))
                for name, chain in (
                    ("bare", rag(0.0)),
                    ("checker", rag(0.0) | at_end),
                    ("checker, claim by claim", rag(0.0) | watching),
                    ("bare, paced", rag(TOKEN_DELAY)),
                    ("claim by claim, paced", rag(TOKEN_DELAY) | watching),
                )
            }
            interleaved(verdict_contenders, rounds=rounds, block=block, warmup=1)
            interleaved(latency_contenders, rounds=rounds * 3, block=block, warmup=2)
    finally:
        loop.close()
    p50 = {name: median_ms(samples) for name, samples in marks.items()}
    made_up_end = len(f"{supported[0]} {MADE_UP}".split(" "))
    verdict_case = (
        f"{SENTENCES} sentences, the 2nd made up (its last token: {made_up_end} of "
        f"{len(answer.split(' '))}), {TOKEN_DELAY * 1000:g} ms a token"
    )
    token_case = f"{SENTENCES} sentences, {len(answer.split(' '))} tokens, no model delay"
    return [
        Row(
            NAME, verdict_case, "made-up claim flagged, claim by claim p50",
            p50["claim by claim"], "ms", p50["at the end"], "check at the end (the report)",
        ),
        Row(NAME, verdict_case, "made-up claim flagged, check at the end p50",
            p50["at the end"], "ms"),
        Row(
            NAME, token_case, "first token through GroundingChecker p50",
            p50["checker"], "ms", p50["bare"], "the bare chain",
        ),
        Row(
            NAME, token_case, "last token through GroundingChecker p50",
            p50["checker last"], "ms", p50["bare last"], "the bare chain",
        ),
        Row(
            NAME, token_case, "last token, claim by claim p50",
            p50["checker, claim by claim last"], "ms", p50["bare last"], "the bare chain",
        ),
        Row(
            NAME, f"the same, {TOKEN_DELAY * 1000:g} ms a token", "last token, claim by claim p50",
            p50["claim by claim, paced last"], "ms", p50["bare, paced last"], "the bare chain",
        ),
    ]  # fmt: skip


if __name__ == "__main__":
    for row in run():
        print(row)

"""Streaming in LlamaIndex: GroundedQueryEngine checks claims while the tokens stream
(ClaimVerdictEvent), and the answer query engines stream (streaming=True). Against the
session emulator, through Google's clients."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from llama_index.core.base.response.schema import AsyncStreamingResponse, StreamingResponse
from llama_index.core.llms import (
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    CustomLLM,
    LLMMetadata,
)
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.query_engine import RetrieverQueryEngine

from grounding_core import ConfigurationError, InputError
from llamaindex_grounding import (
    ClaimVerdictEvent,
    DeveloperKnowledgeAnswerQueryEngine,
    DiscoveryEngineAnswerQueryEngine,
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchSummaryQueryEngine,
    GroundedQueryEngine,
    GroundingCheckEndEvent,
)

from .conftest import PROJECT, UNSUPPORTED

QUESTION = "lighthouse keeper number 131"
KEEPER = "Section 1 of document 13 talks about the lighthouse keeper number 131."
ANSWER = f"{KEEPER} {UNSUPPORTED} {KEEPER} {KEEPER} {KEEPER}"


class ScriptedLLM(CustomLLM):
    """Streams ``text`` word by word, ``delay`` seconds apart."""

    text: str = ANSWER
    delay: float = 0.0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="scripted")

    def _deltas(self) -> list[str]:
        words = self.text.split(" ")
        return [w if i == 0 else " " + w for i, w in enumerate(words)]

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.text)

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            text = ""
            for delta in self._deltas():
                time.sleep(self.delay)
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        async def gen() -> CompletionResponseAsyncGen:
            text = ""
            for delta in self._deltas():
                await asyncio.sleep(self.delay)
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()


def engine(emulator, llm=None, **kwargs):
    retriever = DiscoveryEngineRetriever(
        project_id=PROJECT,
        data_store_id="test-docs",
        emulator_host=emulator.address,
        similarity_top_k=2,
    )
    inner = RetrieverQueryEngine.from_args(retriever, llm=llm or ScriptedLLM(), streaming=True)
    return GroundedQueryEngine(
        inner, project_id=PROJECT, emulator_host=emulator.address, retry=None, **kwargs
    )


def verdict_events(events):
    return [e.verdict for e in events.events if isinstance(e, ClaimVerdictEvent)]


async def test_the_verdict_event_comes_while_the_tokens_stream(emulator, instrumentation):
    events, _spans = instrumentation
    grounded = engine(
        emulator, ScriptedLLM(delay=0.01), check_while_streaming=True, claim_min_chars=10
    )
    response = await grounded.aquery(QUESTION)
    assert isinstance(response, AsyncStreamingResponse)
    seen_at_token = []
    async for _token in response.async_response_gen():
        seen_at_token.append([v["status"] for v in verdict_events(events)])
    assert "unsupported" in seen_at_token[-2]  # before the last token
    verdicts = sorted(verdict_events(events), key=lambda v: v["index"])
    assert [(v["text"], v["status"]) for v in verdicts] == [
        (KEEPER, "supported"),
        (UNSUPPORTED, "unsupported"),
        *[(KEEPER, "supported")] * 3,
    ]
    for verdict in verdicts:
        assert ANSWER[verdict["start"] : verdict["end"]] == verdict["text"]
        assert (
            ANSWER.encode()[verdict["byte_start"] : verdict["byte_end"]].decode()
            == (verdict["text"])
        )
    node_id = response.source_nodes[0].node.node_id
    assert verdicts[0]["source_ids"] == [node_id]
    # the final check of the whole answer, as without streaming
    grounding = response.metadata["grounding"]
    assert [c["text"] for c in grounding["claims"] if c["status"] == "unsupported"] == [UNSUPPORTED]
    assert sorted(v["index"] for v in response.metadata["claim_verdicts"]) == [0, 1, 2, 3, 4]
    ends = [e for e in events.events if isinstance(e, GroundingCheckEndEvent)]
    assert len(ends) == 1  # the claim checks send verdicts, not check events


def test_sync_stream_and_stop(emulator, instrumentation):
    events, _spans = instrumentation
    response = engine(emulator, check_while_streaming=True, claim_min_chars=10).query(QUESTION)
    assert isinstance(response, StreamingResponse)
    assert "".join(response.response_gen) == ANSWER
    assert len(verdict_events(events)) == 5
    assert "stopped_at_claim" not in response.metadata
    stopped = engine(
        emulator,
        ScriptedLLM(text=" ".join([KEEPER, UNSUPPORTED, *[KEEPER] * 40])),
        check_while_streaming=True,
        claim_min_chars=10,
        on_unsupported_claim="fallback",
        fallback_answer="No grounded answer.",
    ).query(QUESTION)
    streamed = "".join(stopped.response_gen)
    assert UNSUPPORTED in streamed
    assert len(streamed) < 40 * len(KEEPER)
    assert stopped.metadata["stopped_at_claim"]["text"] == UNSUPPORTED
    assert stopped.metadata["fallback_answer"] == "No grounded answer."
    assert stopped.metadata["grounding"]["claims"][1]["text"] == UNSUPPORTED


def test_off_by_default_and_settings_checked(emulator, instrumentation):
    events, _spans = instrumentation
    response = engine(emulator).query(QUESTION)
    assert "".join(response.response_gen) == ANSWER
    assert verdict_events(events) == []
    assert "claim_verdicts" not in response.metadata
    with pytest.raises(ConfigurationError, match="on_unsupported_claim must be"):
        engine(emulator, on_unsupported_claim="halt")
    with pytest.raises(ConfigurationError, match="max_concurrent_checks must be"):
        engine(emulator, max_concurrent_checks=0)


async def test_answer_query_engine_streams(emulator):
    arguments = {
        "project_id": PROJECT,
        "engine_id": "python-docs-app",
        "emulator_host": emulator.address,
    }
    whole = DiscoveryEngineAnswerQueryEngine(**arguments).query("What does yield do?")
    streaming = DiscoveryEngineAnswerQueryEngine(streaming=True, **arguments)
    assert streaming.streaming is True
    response = streaming.query("What does yield do?")
    assert isinstance(response, StreamingResponse)
    assert response.metadata is None
    assert response.source_nodes == []
    tokens = list(response.response_gen)
    assert len(tokens) >= 2
    assert "".join(tokens) == whole.response
    assert [n.node.node_id for n in response.source_nodes] == [
        n.node.node_id for n in whole.source_nodes
    ]
    assert response.metadata["citations"] == whole.metadata["citations"]
    assert response.metadata["citation_blocks"] == whole.metadata["citation_blocks"]
    aresponse = await streaming.aquery("What does yield do?")
    assert isinstance(aresponse, AsyncStreamingResponse)
    assert "".join([t async for t in aresponse.async_response_gen()]) == whole.response
    assert aresponse.metadata["citations"] == whole.metadata["citations"]
    refused = DiscoveryEngineAnswerQueryEngine(
        streaming=True, include_grounding_supports=True, **arguments
    )
    with pytest.raises(InputError, match="not available for streamed answers") as info:
        refused.query("What does yield do?")
    assert info.value.field == "include_grounding_supports"


async def test_engines_without_a_streaming_method_stream_their_whole_answer(emulator):
    knowledge = DeveloperKnowledgeAnswerQueryEngine(emulator_host=emulator.address)
    whole = knowledge.query("How do I sort a list?")
    streamed = DeveloperKnowledgeAnswerQueryEngine(
        emulator_host=emulator.address, streaming=True
    ).query("How do I sort a list?")
    assert list(streamed.response_gen) == [whole.response]
    assert streamed.metadata["citations"] == whole.metadata["citations"]
    summary = DiscoveryEngineSearchSummaryQueryEngine(
        project_id=PROJECT,
        data_store_id="python-docs",
        emulator_host=emulator.address,
        streaming=True,
    )
    response = await summary.aquery("What does yield do?")
    tokens = [t async for t in response.async_response_gen()]
    assert len(tokens) == 1
    assert tokens[0] == response.metadata["grounded_answer"].answer_text

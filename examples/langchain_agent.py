"""A LangChain agent (``create_agent``) whose final answers are checked and cited.

The agent searches Vertex AI Search with ``DiscoveryEngineSearchTool``; ``GroundingMiddleware``
checks each final answer with checkGrounding against the documents the tool returned, attaches
standard ``Citation`` annotations (spans into the answer, the source's URL and title) and the
report, and, with ``on_ungrounded="revise"``, sends the unsupported claims back to the model.
The model is the offline stand-in (``ExtractiveChatModel``: it searches, then answers with
sentences of what it found; ``invent`` adds a made-up one). Runs offline on the emulator.

    python -m examples.langchain_agent
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage

from grounding_emulator import EmulatorServer
from langchain_grounding import (
    DiscoveryEngineRetriever,
    DiscoveryEngineSearchTool,
    ExtractiveChatModel,
    GroundingMiddleware,
)

QUESTION = "How does the with statement work?"
INVENTED = "The with statement was added in Python 1.0."


def cited(message: AIMessage) -> list[str]:
    """Each citation of the answer: the span it cites and where the source is."""
    lines = []
    for block in message.content_blocks:
        for citation in block.get("annotations", ()):  # type: ignore[attr-defined]
            start, end = citation["start_index"], citation["end_index"]
            lines.append(f"  [{start}:{end}] {block['text'][start:end]!r}")  # type: ignore[typeddict-item]
            lines.append(f"      -> {citation.get('title', '')} ({citation.get('url', '')})")
    return lines


def verdict(state: dict[str, Any]) -> list[str]:
    grounding = state["grounding"]
    lines = [
        f"support {grounding['support_score']:.2f}, passed: {grounding['passed']}, "
        f"revisions: {state['grounding_revisions']}"
    ]
    lines += [
        f"  unsupported: {c['text']!r}" for c in grounding["claims"] if c["status"] != "supported"
    ]
    return lines


def main() -> str:
    lines: list[str] = []
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        connection = {"project_id": "my-project", "emulator_host": emulator.address}
        retriever = DiscoveryEngineRetriever(data_store_id="python-docs", k=3, **connection)
        tool = DiscoveryEngineSearchTool(retriever=retriever)
        ask = {"messages": [("user", QUESTION)]}

        lines.append("1. An honest agent: its answer cited")
        agent = create_agent(
            ExtractiveChatModel(sentences=1),
            tools=[tool],
            middleware=[GroundingMiddleware(**connection)],
        )
        state = agent.invoke(ask)
        lines.append(state["messages"][-1].text)
        lines += cited(state["messages"][-1])
        lines += verdict(state)

        lines.append("2. An agent that makes a claim up, told to revise it (once)")
        agent = create_agent(
            ExtractiveChatModel(sentences=1, invent=INVENTED),
            tools=[tool],
            middleware=[GroundingMiddleware(on_ungrounded="revise", max_revisions=1, **connection)],
        )
        state = agent.invoke(ask)
        # This stand-in model makes the claim up again: after max_revisions it falls back.
        lines.append(f"answer: {state['messages'][-1].text}")
        lines.append(f"original: {state['original_answer']}")
        lines += verdict(state)

        lines.append("3. Streaming, async (Google's async client)")
        agent = create_agent(
            ExtractiveChatModel(sentences=1),
            tools=[tool],
            middleware=[GroundingMiddleware(**connection)],
        )

        async def stream() -> tuple[int, dict[str, Any]]:
            tokens, state = 0, {}
            async for mode, part in agent.astream(ask, stream_mode=["messages", "values"]):
                if mode == "messages" and part[0].type == "AIMessageChunk" and part[0].text:
                    tokens += 1
                elif mode == "values":
                    state = part
            return tokens, state

        tokens, state = asyncio.run(stream())
        lines.append(f"{tokens} tokens streamed; then the cited answer:")
        lines += cited(state["messages"][-1])
    return "\n".join(lines)


if __name__ == "__main__":
    print(main())

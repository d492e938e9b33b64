"""The answer text and the source nodes of what LlamaIndex's query engines, chat engines and
agents return, for the checks: a ``Response``, a ``StreamingResponse``, an ``AgentChatResponse``
and an agent workflow's ``AgentOutput``.

An agent's sources are what its tools returned: our search and answer tools keep their nodes as
the ``ToolOutput``'s ``raw_output`` (a ``QueryEngineTool`` keeps the engine's ``Response``
there); ``tool_nodes`` gathers them. A workflow's final ``AgentOutput`` (``await handler``)
holds the run's ``ToolCallResult``s in its ``tool_calls``, where they are found; the output of
a single step holds only the LLM's ``ToolSelection``s: pass ``tool_nodes`` of the run's
``ToolCallResult`` events as ``nodes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from llama_index.core.agent.workflow.workflow_events import AgentOutput, ToolCallResult
from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.chat_engine.types import AgentChatResponse
from llama_index.core.schema import BaseNode, NodeWithScore
from llama_index.core.tools import ToolOutput

from grounding_core import InputError

__all__ = [
    "CheckedResponse",
    "aresponse_and_nodes",
    "given_nodes",
    "response_and_nodes",
    "response_text",
    "tool_nodes",
]

CheckedResponse = (
    Response | StreamingResponse | AsyncStreamingResponse | AgentChatResponse | AgentOutput
)
"""What the checks take: a query engine's, a chat engine's or an agent workflow's response."""


def response_text(answer: object) -> str:
    """The text of a response to check: ``None`` (no text) is an empty answer, whose report
    says there is nothing to check; anything but a string is an ``InputError``."""
    if answer is None:
        return ""
    if not isinstance(answer, str):
        raise InputError(
            f"the response text must be a string, got {type(answer).__name__}", field="response"
        )
    return answer


def _output_nodes(raw_output: Any) -> list[NodeWithScore]:
    if isinstance(raw_output, Response | StreamingResponse | AsyncStreamingResponse):
        return list(raw_output.source_nodes)
    if not isinstance(raw_output, list | tuple):
        return []
    return [
        item if isinstance(item, NodeWithScore) else NodeWithScore(node=item)
        for item in raw_output
        if isinstance(item, NodeWithScore | BaseNode)
    ]


def _unique(nodes: Iterable[NodeWithScore]) -> list[NodeWithScore]:
    # The same chunk found by two tool calls is one source: the first one found is kept.
    seen: dict[str, NodeWithScore] = {}
    for node in nodes:
        seen.setdefault(node.node.node_id, node)
    return list(seen.values())


def tool_nodes(tool_outputs: Iterable[ToolOutput | ToolCallResult]) -> list[NodeWithScore]:
    """The nodes the tools returned, in call order, each node id once: the ``raw_output`` of
    each ``ToolOutput`` (of a ``ToolCallResult``, its ``tool_output``) that is a list of
    ``NodeWithScore``s or ``BaseNode``s (a node without score gets ``score=None``) or a
    response (its ``source_nodes``). Failed calls (``is_error``) and other outputs add none.

    >>> from llama_index.core.schema import TextNode
    >>> node = TextNode(id_="c1", text="Paris is in France.")
    >>> output = ToolOutput(
    ...     tool_name="search", content="[1] ...", raw_input={}, raw_output=[node, node]
    ... )
    >>> [n.node.node_id for n in tool_nodes([output])]
    ['c1']
    """
    nodes: list[NodeWithScore] = []
    for item in tool_outputs:
        output = item.tool_output if isinstance(item, ToolCallResult) else item
        if isinstance(output, ToolOutput) and not output.is_error:
            nodes.extend(_output_nodes(output.raw_output))
    return _unique(nodes)


def given_nodes(nodes: object) -> list[NodeWithScore] | None:
    """``nodes`` as a caller gave them (a list of ``NodeWithScore``), ``None`` for none; any
    other value is an ``InputError`` naming ``nodes``."""
    if nodes is None:
        return None
    if isinstance(nodes, str) or not isinstance(nodes, Sequence):
        raise InputError(
            f"nodes must be a list of NodeWithScore, got {type(nodes).__name__}", field="nodes"
        )
    for index, node in enumerate(nodes):
        if not isinstance(node, NodeWithScore):
            raise InputError(
                f"nodes[{index}] must be a NodeWithScore, got {type(node).__name__}",
                field="nodes",
            )
    return list(nodes)


def _refused(response: object) -> InputError:
    if isinstance(response, AsyncStreamingResponse):
        return InputError(
            "the AsyncStreamingResponse has not been consumed: pass await "
            "response.get_response() instead (or use the async check)",
            field="response",
        )
    if isinstance(response, PydanticResponse):
        return InputError(
            "a structured (Pydantic) response has no prose to check", field="response"
        )
    return InputError(
        "response must be a LlamaIndex Response, StreamingResponse, AgentChatResponse or an "
        f"agent workflow's AgentOutput, got {type(response).__name__}",
        field="response",
    )


def response_and_nodes(
    response: object, nodes: Sequence[NodeWithScore] | None = None
) -> tuple[str, list[NodeWithScore]]:
    """The answer text of ``response`` and the nodes to check it against.

    ``nodes``, when given, are the sources; otherwise they are found in the response: a
    ``Response``'s ``source_nodes``; a ``StreamingResponse``'s, after exhausting its stream; an
    ``AgentChatResponse``'s ``source_nodes`` and its ``sources``' nodes (``tool_nodes``); an
    ``AgentOutput``'s, those of the ``ToolCallResult``s in its ``tool_calls`` (a run's final
    output holds them; a step's does not: pass ``tool_nodes`` of the run's events). A
    response without text gives ``""`` (nothing to check); any other object, or an
    ``AsyncStreamingResponse`` not yet consumed, is an ``InputError``.

    >>> from llama_index.core.llms import ChatMessage
    >>> output = AgentOutput(response=ChatMessage(role="assistant", content="Hi."),
    ...                      current_agent_name="agent")
    >>> response_and_nodes(output)
    ('Hi.', [])
    """
    text, found = _text_and_nodes(response)
    return text, list(nodes) if nodes is not None else found


async def aresponse_and_nodes(
    response: object, nodes: Sequence[NodeWithScore] | None = None
) -> tuple[str, list[NodeWithScore]]:
    """``response_and_nodes``, also for an ``AsyncStreamingResponse`` (its stream is consumed
    here)."""
    if isinstance(response, AsyncStreamingResponse) and response.response_txt is None:
        response = await response.get_response()
    return response_and_nodes(response, nodes)


def _text_and_nodes(response: object) -> tuple[str, list[NodeWithScore]]:
    if isinstance(response, Response):
        return response_text(response.response), list(response.source_nodes)
    if isinstance(response, StreamingResponse):
        return response_text(response.get_response().response), list(response.source_nodes)
    if isinstance(response, AsyncStreamingResponse) and response.response_txt is not None:
        return response.response_txt, list(response.source_nodes)
    if isinstance(response, AgentChatResponse):
        found = [*response.source_nodes, *tool_nodes(response.sources)]
        return response_text(response.response), _unique(found)
    if isinstance(response, AgentOutput):
        # What ``await handler`` gives holds the run's ToolCallResults in ``tool_calls``
        # (LlamaIndex adds them there when the run ends, though the field is typed as the LLM's
        # ToolSelections); a step's output holds only ToolSelections, which carry no results.
        results = [call for call in response.tool_calls if isinstance(call, ToolCallResult)]
        return response.response.content or "", tool_nodes(results)
    raise _refused(response)

"""An agent's ``{"messages": [...]}`` state read for a grounding check: the final answer, and the
documents its tools returned in this turn (and a grounded model's: ``message_documents``).

The turn is what follows the user's last message; the revision requests of
``GroundingMiddleware`` (``revision_request``) are part of the turn, not a new one. A tool's
documents are its ``ToolMessage.artifact`` (a list of ``Document``s, as the tools of
``response_format="content_and_artifact"`` give them: ``DiscoveryEngineSearchTool``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from grounding_core import InputError
from grounding_core.agents import REVISION_KEY

from .documents import add_new_documents, message_documents

__all__ = [
    "agent_answer",
    "agent_sources",
    "current_turn",
    "final_answer",
    "is_revision_request",
    "revision_message",
    "turn_documents",
    "turn_revisions",
]


def revision_message(text: str, number: int) -> HumanMessage:
    """The revision request ``text`` as the user message the model answers again to."""
    return HumanMessage(content=text, additional_kwargs={REVISION_KEY: number})


def is_revision_request(message: BaseMessage) -> bool:
    """Whether ``message`` is a revision request (``revision_message``), not the user's."""
    return isinstance(message, HumanMessage) and REVISION_KEY in message.additional_kwargs


def final_answer(messages: Sequence[Any]) -> AIMessage | None:
    """The last message when it is a final answer (an ``AIMessage`` without tool calls), else
    ``None`` (the agent is calling tools, or has not answered)."""
    if not messages:
        return None
    last = messages[-1]
    if isinstance(last, AIMessage) and not last.tool_calls:
        return last
    return None


def _artifact_documents(artifact: Any) -> list[Document]:
    if isinstance(artifact, Document):
        return [artifact]
    if isinstance(artifact, list | tuple):
        return [item for item in artifact if isinstance(item, Document)]
    return []


def current_turn(messages: Sequence[Any]) -> Sequence[Any]:
    """The messages since the user's last message (all of them when there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, HumanMessage) and not is_revision_request(message):
            return messages[index + 1 :]
    return messages


def turn_documents(turn: Sequence[Any]) -> list[Document]:
    """The documents the tools of ``turn`` returned and those its model answered from (a
    grounded model's ``response_metadata["documents"]``), each once, in order."""
    documents: list[Document] = []
    for message in turn:
        if isinstance(message, ToolMessage):
            add_new_documents(documents, _artifact_documents(message.artifact))
        elif isinstance(message, AIMessage):
            add_new_documents(documents, message_documents(message))
    return documents


def agent_sources(state: Mapping[str, Any], turn: Sequence[Any]) -> list[Document]:
    """The documents an agent's answer in ``turn`` is checked against: those its tools
    returned (``turn_documents``), then the state's ``documents`` (each once)."""
    documents = turn_documents(turn)
    given = state.get("documents")
    if given is None:
        return documents
    if not isinstance(given, list | tuple):
        raise InputError(
            "the agent state's 'documents' must be a list of Documents, got "
            f"{type(given).__name__}",
            field="documents",
        )
    for index, document in enumerate(given):
        if not isinstance(document, Document):
            raise InputError(
                f"the agent state's documents[{index}] must be a Document, got "
                f"{type(document).__name__}",
                field="documents",
            )
    add_new_documents(documents, given)
    return documents


def agent_answer(output: Any) -> tuple[AIMessage, list[Document]] | None:
    """The final answer of an agent's output state (``{"messages": [...], ...}``) and its
    sources (``agent_sources``); ``None`` when ``output`` is not an agent state that ends
    with a final answer."""
    if not isinstance(output, Mapping):
        return None
    messages = output.get("messages")
    if not isinstance(messages, list | tuple):
        return None
    answer = final_answer(messages)
    if answer is None:
        return None
    return answer, agent_sources(output, current_turn(messages))


def turn_revisions(turn: Sequence[Any]) -> int:
    """How many revision requests ``turn`` holds."""
    return sum(1 for message in turn if is_revision_request(message))

"""``GroundedAgentWorkflow``: a LlamaIndex agent (``FunctionAgent``, ``ReActAgent``,
``AgentWorkflow``) whose final response is checked with Google's checkGrounding against the nodes
its tools returned, cited, and revised when it is not supported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.agent.workflow import AgentWorkflow, BaseWorkflowAgent
from llama_index.core.agent.workflow.workflow_events import AgentOutput, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.schema import NodeWithScore
from llama_index.core.tools import ToolSelection
from llama_index.core.workflow import Context, Event, StartEvent, StopEvent, Workflow, step
from pydantic import Field
from typing_extensions import Unpack

from grounding_core import (
    DEFAULT_CITATION_THRESHOLD,
    DEFAULT_FALLBACK_ANSWER,
    DEFAULT_GROUNDING_CONFIG,
    DEFAULT_MIN_SUPPORT_SCORE,
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
    GroundingOutcome,
    InputError,
    report_citations,
)
from grounding_core.agents import (
    DEFAULT_MAX_REVISIONS,
    REVISION_KEY,
    AgentAction,
    AgentPolicy,
    agent_action,
    check_agent_policy,
    revision_request,
)
from grounding_core.grounding.check import ErrorPolicy
from grounding_core.peers import refuse_unknown_arguments

from ._agent_outputs import given_nodes, tool_nodes
from ._checking import NodeGroundingChecker
from .citations import GROUNDING_KEY, cited_chat_message

__all__ = [
    "AgentGroundingEvent",
    "GroundedAgentOutput",
    "GroundedAgentWorkflow",
]


class AgentGroundingEvent(Event):
    """One final response checked, on the workflow's event stream (``handler.stream_events()``).

    Args:
        grounding: the report's metadata (``GroundingReport.metadata()``: support score,
            claims with their spans, ``passed``, ``citation_annotations``).
        action: what follows: ``"keep"``, ``"revise"``, ``"fallback"`` or ``"raise"``.
        revisions: the revisions made before this check.
    """

    grounding: dict[str, Any]
    action: str
    revisions: int


class GroundedAgentOutput(AgentOutput):
    """The agent's final ``AgentOutput``, checked: ``response`` carries the report's metadata in
    ``additional_kwargs["grounding"]`` and one ``CitationBlock`` per supported claim and cited
    source (``cited_chat_message``); ``grounding`` is the same metadata, ``grounding_report``
    the ``GroundingReport`` (its claims cite the nodes), ``nodes`` the nodes checked against,
    ``revisions`` the revisions made, ``original_answer`` the answer a fallback replaced."""

    # As the agent's own output holds them at the end of a run: the run's ToolCallResults
    # (LlamaIndex's AgentOutput types the field as ToolSelections only).
    tool_calls: list[ToolSelection | ToolCallResult] = Field(default_factory=list)  # type: ignore[assignment]
    grounding: dict[str, Any]
    grounding_report: Any = Field(default=None, exclude=True)
    nodes: list[NodeWithScore] = Field(default_factory=list)
    revisions: int = 0
    original_answer: str | None = None


_Outcome = GroundingOutcome[NodeWithScore]


class GroundedAgentWorkflow(Workflow):
    """Runs an agent and checks its final response against the nodes its tools returned in
    the run (the ``raw_output`` of each ``ToolCallResult``, as our search and answer tools keep
    them) and the ``nodes`` given to ``run``.

    Setup:
        As for ``GroundedQueryEngine``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``).

    Key init args:
        agent: a ``FunctionAgent``, ``ReActAgent`` or ``AgentWorkflow``.
        on_ungrounded: ``"annotate"`` (default: keep the response, with its report),
            ``"raise"`` (``UngroundedAnswerError``, from ``await handler``), ``"fallback"``
            (the response's text becomes ``fallback_answer``), or ``"revise"``: send the
            unsupported claims back to the agent (a user message, ``revision_request``, in the
            same memory: the agent sees its answer and its tools' results) and let it answer
            again, at most ``max_revisions`` times (0..10, default 2), then fall back.
        on_error: ``"record"`` (default, as ``GroundedQueryEngine``: a failed check is logged
            and its report has ``error``; ``"revise"`` then falls back) or ``"raise"``.
        grounding_config, citation_threshold, enable_claim_level_score, user_labels,
        min_support_score, fallback_answer, and the connection fields (``timeout`` is the one of
        each call to Google; the agent's own timeout bounds each of its runs): as for
        ``GroundedQueryEngine``.

    Instantiate:
        .. code-block:: python

            from llama_index.core.agent.workflow import FunctionAgent
            from llamaindex_grounding import DiscoveryEngineSearchTool, GroundedAgentWorkflow

            agent = FunctionAgent(tools=[DiscoveryEngineSearchTool(retriever)], llm=llm)
            grounded = GroundedAgentWorkflow(agent, project_id="my-project", on_ungrounded="revise")

    Usage:
        .. code-block:: python

            handler = grounded.run(user_msg="What does yield do?")
            async for event in handler.stream_events():
                ...   # the agent's events (AgentStream, ToolCallResult, ...), AgentGroundingEvent
            output = await handler             # GroundedAgentOutput
            output.grounding["support_score"], output.response.blocks  # CitationBlocks

    ``run`` takes the agent's ``user_msg``, ``chat_history``, ``memory`` and ``max_iterations``,
    and ``nodes``: more sources to check against. Each run of the agent (the first, each
    revision) has a context of its own and the conversation goes on in one memory (the one
    given, else a ``ChatMemoryBuffer``): an ``AgentWorkflow``'s ``state`` starts again from its
    ``initial_state`` at a revision. Checks run on Google's async client, each
    between a ``GroundingCheckStartEvent`` and a ``GroundingCheckEndEvent``. An empty final
    response is not sent (``skipped_reason``) and is kept.
    """

    @refuse_unknown_arguments
    def __init__(
        self,
        agent: BaseWorkflowAgent | AgentWorkflow,
        *,
        on_ungrounded: AgentPolicy = "annotate",
        max_revisions: int = DEFAULT_MAX_REVISIONS,
        on_error: ErrorPolicy = "record",
        grounding_config: str = DEFAULT_GROUNDING_CONFIG,
        citation_threshold: float = DEFAULT_CITATION_THRESHOLD,
        enable_claim_level_score: bool = False,
        user_labels: Mapping[str, str] | None = None,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        fallback_answer: str = DEFAULT_FALLBACK_ANSWER,
        **connection: Unpack[DiscoveryEngineConnectionArgs],
    ) -> None:
        if not isinstance(agent, BaseWorkflowAgent | AgentWorkflow):
            raise ConfigurationError(
                "agent must be a LlamaIndex agent workflow (FunctionAgent, ReActAgent or "
                f"AgentWorkflow), got {type(agent).__name__}"
            )
        check_agent_policy(on_ungrounded, max_revisions)
        self._agent = agent
        self._on_ungrounded: AgentPolicy = on_ungrounded
        self._max_revisions = max_revisions
        self._checker = NodeGroundingChecker(
            DiscoveryEngineConnection(**connection),
            grounding_config=grounding_config,
            citation_threshold=citation_threshold,
            enable_claim_level_score=enable_claim_level_score,
            min_support_score=min_support_score,
            fallback_answer=fallback_answer,
            user_labels=user_labels,
            on_error=on_error,
        )
        # No timeout of its own: the agent's applies to each run (``timeout`` is the connection's,
        # per call to Google, as on every component).
        super().__init__(timeout=None)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(agent={type(self._agent).__name__}, "
            f"on_ungrounded={self._on_ungrounded!r}, max_revisions={self._max_revisions}, "
            f"checker={self._checker!r})"
        )

    @property
    def agent(self) -> BaseWorkflowAgent | AgentWorkflow:
        """The agent whose responses are checked."""
        return self._agent

    @property
    def on_ungrounded(self) -> AgentPolicy:
        """What an ungrounded response does: annotate, raise, fallback or revise."""
        return self._on_ungrounded

    @property
    def max_revisions(self) -> int:
        """How many times ``revise`` sends a response back before it falls back."""
        return self._max_revisions

    async def _run_agent(self, ctx: Context, nodes: list[NodeWithScore], **run: Any) -> AgentOutput:
        """One run of the agent: its events go on this workflow's stream, its tools' nodes are
        added to ``nodes``."""
        handler = self._agent.run(**run)
        async for event in handler.stream_events():
            if isinstance(event, StopEvent):
                continue  # the agent's end, not this workflow's: it would end the stream
            ctx.write_event_to_stream(event)
            if isinstance(event, ToolCallResult):
                known = {n.node.node_id for n in nodes}
                nodes.extend(n for n in tool_nodes([event]) if n.node.node_id not in known)
        output = await handler
        if not isinstance(output, AgentOutput):
            raise InputError(
                f"the agent returned {type(output).__name__}, not an AgentOutput: "
                "GroundedAgentWorkflow checks LlamaIndex agent workflows",
                field="agent",
            )
        return output

    @step
    async def answer(self, ctx: Context, ev: StartEvent) -> StopEvent:
        """Run the agent, check its final response, and apply the policy."""
        nodes = given_nodes(ev.get("nodes")) or []
        run = {
            key: ev.get(key)
            for key in ("user_msg", "chat_history", "memory", "max_iterations")
            if ev.get(key) is not None
        }
        # Each run of the agent has a context of its own (a context run again does not keep
        # the memory: it is not serializable); the conversation goes on in one memory object,
        # the caller's or the one the agent would have made.
        run.setdefault(
            "memory", ChatMemoryBuffer.from_defaults(llm=getattr(self._agent, "llm", None))
        )
        revisions = 0
        while True:
            output = await self._run_agent(ctx, nodes, **run)
            outcome = await self._checker.arun_answer(output.response.content, nodes)
            report = outcome.report
            action: AgentAction = agent_action(
                report, self._on_ungrounded, revisions, self._max_revisions
            )
            ctx.write_event_to_stream(
                AgentGroundingEvent(grounding=report.metadata(), action=action, revisions=revisions)
            )
            if action != "revise":
                break
            revisions += 1
            request = ChatMessage(
                role="user",
                content=revision_request(report),
                additional_kwargs={REVISION_KEY: revisions},
            )
            # The next run continues the conversation: only the request is new.
            run = {key: run[key] for key in ("memory", "max_iterations") if key in run}
            run["user_msg"] = request
        if action == "raise":
            outcome.raise_if_ungrounded()
        return StopEvent(result=self._output(output, outcome, nodes, revisions, action))

    def _output(
        self,
        output: AgentOutput,
        outcome: _Outcome,
        nodes: list[NodeWithScore],
        revisions: int,
        action: AgentAction,
    ) -> GroundedAgentOutput:
        report = outcome.report
        metadata = report.metadata()
        original = output.response.content or ""
        fallback = action == "fallback"
        if fallback:
            response = ChatMessage(
                role=output.response.role,
                content=self._checker.fallback_answer,
                additional_kwargs={**output.response.additional_kwargs, GROUNDING_KEY: metadata},
            )
        else:
            response = cited_chat_message(output.response, report_citations(report), metadata)
        return GroundedAgentOutput(
            response=response,
            structured_response=output.structured_response,
            current_agent_name=output.current_agent_name,
            raw=output.raw,
            tool_calls=output.tool_calls,
            retry_messages=output.retry_messages,
            grounding=metadata,
            grounding_report=report,
            nodes=nodes,
            revisions=revisions,
            original_answer=original if fallback else None,
        )

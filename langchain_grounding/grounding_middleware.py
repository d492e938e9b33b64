"""``GroundingMiddleware``: the final answer of a ``create_agent`` agent checked with Google's
checkGrounding against the documents its tools returned, cited, and revised when it is not
supported."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NotRequired

from langchain_core.callbacks import AsyncCallbackHandler, adispatch_custom_event
from langchain_core.callbacks.manager import AsyncCallbackManager
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGenerationChunk, GenerationChunk
from langchain_core.runnables.config import ensure_config, var_child_runnable_config

from grounding_core import AsyncClaimStream, ClaimVerdict, GroundingOutcome, report_citations
from grounding_core.agents import (
    DEFAULT_MAX_REVISIONS,
    AgentAction,
    AgentPolicy,
    agent_action,
    check_agent_policy,
    revision_request,
)

from .agent_messages import (
    agent_sources,
    current_turn,
    final_answer,
    revision_message,
    turn_revisions,
)
from .check_stream import CLAIM_EVENT
from .citations import cited_message, uncited_message
from .grounding_checker import GroundingChecker, checked_documents, checker_of

try:
    from langchain.agents.middleware import (
        AgentMiddleware,
        AgentState,
        ModelRequest,
        ModelResponse,
        hook_config,
    )
    from langchain.agents.middleware.types import OmitFromInput
    from langgraph.runtime import Runtime
except ImportError as exc:  # pragma: no cover - the extra is installed in the tests
    raise ImportError(
        "GroundingMiddleware needs LangChain's agents (the langchain package): "
        "pip install 'grounding-kit[langchain-agents]'"
    ) from exc

__all__ = ["GroundingMiddleware", "GroundingState"]

LangChainOutcome = GroundingOutcome[Document | str]


class GroundingState(AgentState[Any]):
    """The agent state ``GroundingMiddleware`` adds: ``documents`` (input: sources of the
    answer besides the tools' artifacts), ``grounding`` (the last final answer's
    ``GroundingReport.metadata()``), ``grounding_revisions`` (the revisions of this turn) and
    ``original_answer`` (the answer a fallback replaced)."""

    documents: NotRequired[list[Document]]
    grounding: NotRequired[Annotated[dict[str, Any], OmitFromInput]]
    grounding_revisions: NotRequired[Annotated[int, OmitFromInput]]
    original_answer: NotRequired[Annotated[str, OmitFromInput]]


class GroundingMiddleware(AgentMiddleware[GroundingState, Any]):
    """Checks each final answer of a ``create_agent`` agent (a model turn that ends without
    tool calls) against the documents its tools returned in this turn (``ToolMessage``
    artifacts, as ``DiscoveryEngineSearchTool`` gives them), those a grounded model answered
    from (``ChatDiscoveryEngineGrounded``'s ``response_metadata["documents"]``) and the state's
    ``documents``.

    The final ``AIMessage`` gets the report's metadata in ``response_metadata["grounding"]``
    and one standard ``Citation`` annotation per supported claim and cited source on its text
    block (``message.content_blocks``); the state gets ``grounding`` (the same metadata) and
    ``grounding_revisions``.

    Setup:
        As for ``GroundingChecker``: Google Cloud credentials, or the emulator
        (``emulator_host`` / ``DISCOVERYENGINE_EMULATOR_HOST``); and LangChain's agents,
        ``pip install 'grounding-kit[langchain-agents]'``.

    Key init args:
        on_ungrounded: what to do with an answer that does not pass: ``"annotate"`` (default:
            keep it, with its report), ``"raise"`` (``UngroundedAnswerError``; the report is
            its ``.result``), ``"fallback"`` (replace its text by the checker's
            ``fallback_answer``; the state keeps ``original_answer``), or ``"revise"``: send the
            unsupported claims back to the model (a user message, ``revision_request``) and let
            it answer again, at most ``max_revisions`` times, then fall back.
        max_revisions: 0..10, default 2 (each revision is one more model call and check).
        checker: a ``GroundingChecker``, or its fields as keyword arguments (``project_id``,
            ``min_support_score``, ``fallback_answer``, the connection fields, ...). The
            checker's own ``on_ungrounded`` is not used: the middleware's policy decides.

    Instantiate:
        .. code-block:: python

            from langchain_grounding import GroundingMiddleware

            grounding = GroundingMiddleware(project_id="my-project", on_ungrounded="revise")

    Usage:
        .. code-block:: python

            from langchain.agents import create_agent
            from langchain_grounding import DiscoveryEngineSearchTool

            agent = create_agent(
                model,
                tools=[DiscoveryEngineSearchTool(retriever=retriever)],
                middleware=[grounding],
            )
            state = agent.invoke({"messages": [("user", "What does yield do?")]})
            state["messages"][-1].content_blocks[0]["annotations"]   # Citations
            state["grounding"]["support_score"]

    The model is sent the conversation without these citations (``wrap_model_call``): they are
    for the application, and a revision, or the next turn of a checkpointed conversation,
    gives the model its earlier answers as it wrote them.

    Streaming: with the checker's ``check_while_streaming=True``, in ``astream`` (and
    ``astream_events``) each sentence of the model's answer is checked as its tokens stream,
    against the turn's sources so far, and each verdict is the custom event
    ``"grounding_claim"`` (``ClaimVerdict.to_dict()``), as the checker sends it; the final
    check and the policy then run as usual. The sync ``stream`` checks at the end only.

    ``invoke`` checks on Google's sync client, ``ainvoke`` and ``astream`` on its async client.
    A failed check raises its ``GroundingError``; an empty final answer is not sent (its report
    has ``skipped_reason``) and is kept.
    """

    state_schema = GroundingState

    def __init__(
        self,
        checker: GroundingChecker | None = None,
        *,
        on_ungrounded: AgentPolicy = "annotate",
        max_revisions: int = DEFAULT_MAX_REVISIONS,
        **checker_fields: Any,
    ) -> None:
        check_agent_policy(on_ungrounded, max_revisions)
        self.checker = checker_of("GroundingMiddleware", checker, checker_fields)
        self.on_ungrounded: AgentPolicy = on_ungrounded
        self.max_revisions = max_revisions

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(on_ungrounded={self.on_ungrounded!r}, "
            f"max_revisions={self.max_revisions}, checker={self.checker!r})"
        )

    def _update(
        self, answer: AIMessage, outcome: LangChainOutcome, revisions: int
    ) -> dict[str, Any]:
        report = outcome.report
        metadata = report.metadata()
        cited = cited_message(answer, report_citations(report), metadata)
        update: dict[str, Any] = {
            "messages": [cited],
            "grounding": metadata,
            "grounding_revisions": revisions,
        }
        action: AgentAction = agent_action(
            report, self.on_ungrounded, revisions, self.max_revisions
        )
        if action == "raise":
            outcome.raise_if_ungrounded()
        elif action == "revise":
            request = revision_message(revision_request(report), revisions + 1)
            update.update(messages=[cited, request], jump_to="model")
        elif action == "fallback":
            fallback = cited.model_copy(update={"content": self.checker.fallback_answer})
            update.update(messages=[fallback], original_answer=answer.text)
        return update

    @staticmethod
    def _uncited(request: ModelRequest[Any]) -> ModelRequest[Any]:
        # The model is sent the messages without the citations this middleware added: they are
        # for the application, and a provider may refuse content keys it does not know.
        messages = [uncited_message(m) for m in request.messages]
        if all(new is old for new, old in zip(messages, request.messages, strict=True)):
            return request
        return request.override(messages=messages)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with the messages as they were, without our citations."""
        return handler(self._uncited(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async ``wrap_model_call``; with ``check_while_streaming``, the answer's sentences
        are checked as the model's tokens come (the class docstring)."""
        request = self._uncited(request)
        if not self.checker.check_while_streaming:
            return await handler(request)
        config = ensure_config()

        async def announce(verdict: ClaimVerdict) -> None:
            await adispatch_custom_event(CLAIM_EVENT, verdict.to_dict(), config=config)

        claims = AsyncClaimStream(
            self.checker.grounding_check,
            on_verdict=announce,
            **self.checker.claim_stream_settings(),
        )
        turn = current_turn(request.messages)
        claims.set_sources(*checked_documents(agent_sources(request.state, turn)))
        # The model is called with the node's config from the context: a copy of its callbacks
        # with one more handler sees the tokens, and the model's run stays where it was.
        callbacks = config.get("callbacks")
        manager = (
            callbacks.copy()
            if isinstance(callbacks, AsyncCallbackManager)
            else AsyncCallbackManager.configure(inheritable_callbacks=callbacks)
        )
        manager.add_handler(_Tokens(claims), inherit=True)
        token = var_child_runnable_config.set({**config, "callbacks": manager})
        try:
            response = await handler(request)
            await claims.finish()
        finally:
            var_child_runnable_config.reset(token)
            claims.close()
        return response

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: GroundingState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Check a final answer (on Google's sync client) and apply the policy."""
        found = _to_check(state)
        if found is None:
            return None
        answer, sources, revisions = found
        outcome = self.checker.grounding_check.run(answer.text, *checked_documents(sources))
        return self._update(answer, outcome, revisions)

    @hook_config(can_jump_to=["model"])
    async def aafter_model(
        self, state: GroundingState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async ``after_model``, on Google's async client."""
        found = _to_check(state)
        if found is None:
            return None
        answer, sources, revisions = found
        outcome = await self.checker.grounding_check.arun(answer.text, *checked_documents(sources))
        return self._update(answer, outcome, revisions)


class _Tokens(AsyncCallbackHandler):
    """Feeds a model's streamed tokens to the claim checks."""

    def __init__(self, claims: AsyncClaimStream) -> None:
        self.claims = claims

    async def on_llm_new_token(
        self,
        token: str,
        *,
        chunk: GenerationChunk | ChatGenerationChunk | None = None,
        **kwargs: Any,
    ) -> None:
        """Add the token's text: the chunk's, as a model that streams content blocks (a list)
        gives LangChain's ``token`` its content."""
        self.claims.add_text(chunk.text if chunk is not None else token)


def _to_check(state: GroundingState) -> tuple[AIMessage, list[Document], int] | None:
    """The final answer of ``state``, its sources and the turn's revisions so far; ``None``
    when the model's turn is not a final answer (it calls tools)."""
    answer = final_answer(state["messages"])
    if answer is None:
        return None
    turn = current_turn(state["messages"])
    return answer, agent_sources(state, turn), turn_revisions(turn)

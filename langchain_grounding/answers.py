"""``DiscoveryEngineAnswer`` and ``DeveloperKnowledgeAnswer``: answerQuery as Runnables, with
multi-turn conversations (a Discovery Engine session; the Developer Knowledge API, which has
no sessions, condenses a follow-up with the earlier turns)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.runnables.utils import AddableDict
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    AnswerSpec,
    DataStoreSpec,
    DeveloperKnowledgeAnswerQuery,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
    answer_metadata,
)
from grounding_core.answers.answer_query import (
    AnswerOptions,
    FilteringLevel,
    QueryClassificationType,
)
from grounding_core.search.discovery_engine import DiscoveryEngineTargetArgs
from grounding_core.search.specs import SearchResultMode

from ._arguments import StrictArguments
from ._connection import DeveloperKnowledgeSettings, DiscoveryEngineSettings
from ._options import option_values, spec_default
from .check_stream import TransformStreams
from .documents import chunk_to_document
from .question_condenser import HISTORY_KEY, QUERY_KEYS, QuestionCondenser, query_of

__all__ = [
    "QUERY_KEYS",
    "SESSION_KEY",
    "DeveloperKnowledgeAnswer",
    "DiscoveryEngineAnswer",
    "answer_chunk",
    "answer_output",
]

# The input key of the session a query is asked in (the output's "session" names it).
SESSION_KEY = "session"
_query = query_of  # the name the search-summary Runnable imports


def answer_output(query: str, answer: GroundedAnswer) -> dict[str, Any]:
    """The output dict of both answer Runnables.

    ``query``: the query sent; ``answer``: the text; ``documents``: the references as
    ``Document``s; every key of ``grounding_core.answer_metadata`` (``grounding_score``;
    ``citations`` and ``grounding_supports``, each with its text, char and byte spans, the
    positions of its documents (``reference_indices``) and their ids (``source_ids``);
    ``skipped_reasons``; ``session``, the session to pass on to the next turn; ...: the schema
    LlamaIndex's answer metadata has too); ``grounded_answer``: the full record
    (``grounding_core.answer_markdown`` renders it).
    """
    return {
        "query": query,
        "answer": answer.answer_text,
        "documents": [chunk_to_document(r) for r in answer.references],
        **answer_metadata(answer),
        "grounded_answer": answer,
    }


def answer_chunk(query: str, item: str | GroundedAnswer) -> AddableDict:
    """A stream chunk of the answer Runnables: ``{"answer": text}`` for new text; last, every
    other key of ``answer_output`` (the chunks add up to ``answer_output``)."""
    if isinstance(item, str):
        return AddableDict(answer=item)
    output = answer_output(query, item)
    output["answer"] = ""  # the text came in the earlier chunks (none: an empty answer)
    return AddableDict(output)


def _merged(chunks: list[Any]) -> Any:
    """One input from an input stream (LangChain adds its chunks up)."""
    if not chunks:
        raise InputError("the input stream was empty: give the query", field="input")
    merged = AddableDict(chunks[0]) if isinstance(chunks[0], Mapping) else chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return merged


def _refuse(input: Any, key: str, hint: str) -> None:
    if isinstance(input, Mapping) and input.get(key) is not None:
        raise InputError(hint, field=key)


class _Answering(
    TransformStreams,
    RunnableSerializable[str | dict[str, Any], dict[str, Any]],
    StrictArguments,
):
    """What the answer Runnables share: ``invoke``/``ainvoke`` around a core component with
    ``answer(query)``/``aanswer(query)``, and ``stream``/``astream`` around its
    ``stream(query)``/``astream(query)``: ``{"answer": text}`` chunks as the answer arrives,
    then one chunk with the rest of the output (``answer_chunk``). ``_call_kwargs`` gives the
    keyword arguments of that call from the input (none here: a session in the input is
    refused)."""

    _answering: Any = PrivateAttr()

    @property
    def answering(self) -> Any:
        """The core component this Runnable wraps."""
        return self._answering

    def _call_kwargs(self, input: Any) -> dict[str, Any]:
        _refuse(input, SESSION_KEY, f"{type(self).__name__} has no sessions: leave out 'session'")
        return {}

    def _asked(
        self, input: Any, run_manager: CallbackManagerForChainRun
    ) -> tuple[str, dict[str, Any]]:
        """The query to send and the call's keyword arguments."""
        return query_of(input), self._call_kwargs(input)

    async def _aasked(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun
    ) -> tuple[str, dict[str, Any]]:
        """Async ``_asked``."""
        return query_of(input), self._call_kwargs(input)

    def _invoke(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any]:
        query, kwargs = self._asked(input, run_manager)
        return answer_output(query, self._answering.answer(query, **kwargs))

    async def _ainvoke(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> dict[str, Any]:
        query, kwargs = await self._aasked(input, run_manager)
        return answer_output(query, await self._answering.aanswer(query, **kwargs))

    def _transform(
        self, inputs: Iterator[Any], run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> Iterator[AddableDict]:
        query, kwargs = self._asked(_merged(list(inputs)), run_manager)
        for item in self._answering.stream(query, **kwargs):
            yield answer_chunk(query, item)

    async def _atransform(
        self,
        inputs: AsyncIterator[Any],
        run_manager: AsyncCallbackManagerForChainRun,
        config: RunnableConfig,
    ) -> AsyncIterator[AddableDict]:
        query, kwargs = await self._aasked(_merged([i async for i in inputs]), run_manager)
        async for item in self._answering.astream(query, **kwargs):
            yield answer_chunk(query, item)

    def invoke(
        self, input: str | dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Answer the query."""
        return self._call_with_config(self._invoke, input, config, **kwargs)

    async def ainvoke(
        self, input: str | dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """Async ``invoke`` on Google's async client."""
        return await self._acall_with_config(self._ainvoke, input, config, **kwargs)


def _default(name: str) -> Any:
    return spec_default(AnswerSpec, name)


class DiscoveryEngineAnswer(DiscoveryEngineSettings, _Answering):
    """A grounded answer from Discovery Engine's ``answerQuery``: query in, answer out.

    Key init args:
        engine_id (the usual target of answerQuery) or data_store_id; project_id, location,
        collection, serving_config_id; every field of ``grounding_core.AnswerSpec`` (with its
        default): max_return_results, filter, boost_spec, order_by, search_mode
        (``"chunks"``; ``None`` sends none: Google's default, documents), data_store_specs,
        include_citations, preamble, model_version, answer_language_code,
        include_grounding_supports, filtering_level, the ignore_* flags, safety_filtering,
        related_questions, disable_query_rephraser, max_rephrase_steps,
        query_classification_types, disable_spell_correction, user_pseudo_id, session; and
        the connection fields. Each option is a field of its name (typed, described), with
        the spec's default and limits.

    Usage:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineAnswer

            answerer = DiscoveryEngineAnswer(project_id="my-project", engine_id="docs-app")
            out = answerer.invoke("How do I open a file?")
            out["answer"], out["citations"][0]["start"], out["documents"][0].metadata["source"]

    Multi-turn: ``{"query": ..., "session": "-"}`` starts a session, whose name comes back
    under ``out["session"]``; pass it as the next input's ``session`` and the follow-up is
    answered in the conversation (a per-call ``session`` wins over the ``session`` field).

    Streaming: ``stream``/``astream`` call StreamAnswerQuery and yield ``{"answer": text}``
    chunks as the answer is generated, then one chunk with every other key of the output (the
    chunks add up to ``invoke``'s output). Google's streamed answers have no grounding scores
    and one rephrase step: ``include_grounding_supports``, ``filtering_level``,
    ``disable_query_rephraser`` and ``max_rephrase_steps`` are refused with a stream.

    Input: a str, or a dict with ``query``/``question``/``input`` (and ``session``). Output:
    see ``answer_output``.
    """

    data_store_id: str | None = None
    engine_id: str | None = None
    collection: str | None = DEFAULT_COLLECTION
    serving_config_id: str = DEFAULT_SERVING_CONFIG
    # The answer options: AnswerSpec's fields, with its defaults.
    include_citations: bool = Field(
        default=_default("include_citations"), description="citation spans and in-line numbers"
    )
    max_return_results: int = Field(
        default=_default("max_return_results"),
        description="search results the answer may use (1..100)",
    )
    filter: str = Field(default=_default("filter"), description='e.g. lang: ANY("en")')
    boost_spec: Mapping[str, Any] | None = Field(
        default=_default("boost_spec"), description="a BoostSpec as a dict"
    )
    order_by: str = Field(default=_default("order_by"), description="e.g. year desc")
    search_mode: SearchResultMode | None = Field(
        default=_default("search_mode"),
        description="chunks, documents, or None: send none (documents)",
    )
    data_store_specs: Sequence[DataStoreSpec] = Field(
        default=_default("data_store_specs"),
        description="DataStoreSpec records (multi-data-store engines)",
    )
    preamble: str = Field(
        default=_default("preamble"), description="instructions for the answer model"
    )
    model_version: str = Field(
        default=_default("model_version"), description="e.g. stable, preview"
    )
    answer_language_code: str = Field(
        default=_default("answer_language_code"), description="e.g. en"
    )
    include_grounding_supports: bool = Field(
        default=_default("include_grounding_supports"),
        description="grounding supports and grounding_score",
    )
    filtering_level: FilteringLevel | None = Field(
        default=_default("filtering_level"), description="low or high: drop weakly grounded answers"
    )
    ignore_adversarial_query: bool = Field(
        default=_default("ignore_adversarial_query"), description="no answer to adversarial queries"
    )
    ignore_non_answer_seeking_query: bool = Field(
        default=_default("ignore_non_answer_seeking_query"), description="no answer to chit-chat"
    )
    ignore_jail_breaking_query: bool = Field(
        default=_default("ignore_jail_breaking_query"),
        description="no answer to jail-breaking queries",
    )
    ignore_low_relevant_content: bool | None = Field(
        default=_default("ignore_low_relevant_content"),
        description="no answer from low-relevance results",
    )
    safety_filtering: bool = Field(
        default=_default("safety_filtering"), description="safety_spec.enable"
    )
    related_questions: bool = Field(
        default=_default("related_questions"), description="related questions in the answer"
    )
    disable_query_rephraser: bool = Field(
        default=_default("disable_query_rephraser"), description="send the query as it is"
    )
    max_rephrase_steps: int | None = Field(
        default=_default("max_rephrase_steps"), description="rephrasing steps (1..5)"
    )
    query_classification_types: Sequence[QueryClassificationType] = Field(
        default=_default("query_classification_types"), description="query types to classify"
    )
    disable_spell_correction: bool = Field(
        default=_default("disable_spell_correction"), description="no spell correction of the query"
    )
    user_pseudo_id: str = Field(
        default=_default("user_pseudo_id"), description="the visitor (at most 128 characters)"
    )
    session: str | None = Field(
        default=_default("session"), description='None, "-" (start one) or a session to continue'
    )

    _answering: DiscoveryEngineAnswerQuery = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> DiscoveryEngineAnswer:
        self._answering = DiscoveryEngineAnswerQuery(
            self.connection,
            **option_values(self, DiscoveryEngineTargetArgs),
            **option_values(self, AnswerOptions),
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store asked."""
        return self._answering.target

    def _call_kwargs(self, input: Any) -> dict[str, Any]:
        _refuse(
            input,
            HISTORY_KEY,
            "DiscoveryEngineAnswer keeps the conversation in its session: pass the previous "
            "output's 'session' instead of chat_history",
        )
        session = input.get(SESSION_KEY) if isinstance(input, Mapping) else None
        return {} if session is None else {"session": session}


class DeveloperKnowledgeAnswer(DeveloperKnowledgeSettings, _Answering):
    """A grounded answer from the Developer Knowledge API's ``answerQuery``.

    .. code-block:: python

        from langchain_grounding import DeveloperKnowledgeAnswer

        out = DeveloperKnowledgeAnswer().invoke("How do I create a Cloud Storage bucket?")
        out["answer"], out["documents"][0].metadata["source"]

    ``filter`` (AIP-160, at most 500 characters) narrows the documents the answer may use.

    Multi-turn: the API has no sessions, so a dict input's ``chat_history`` (the earlier
    turns, as messages or ``(role, text)`` pairs: what ``RunnableWithMessageHistory`` fills
    in) is condensed with the follow-up by ``condenser`` (a ``QuestionCondenser``: the earlier
    questions joined with it by default, or your LLM's standalone question), and the output's
    ``query`` is the question that was asked. Output: see ``answer_output``.
    """

    filter: str = Field(
        default=spec_default(DeveloperKnowledgeAnswerQuery, "filter"),
        description="AIP-160 (at most 500 characters)",
    )
    condenser: QuestionCondenser = Field(default_factory=QuestionCondenser)

    _answering: DeveloperKnowledgeAnswerQuery = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> DeveloperKnowledgeAnswer:
        self._answering = DeveloperKnowledgeAnswerQuery(self.connection, filter=self.filter)
        return self

    def _asked(
        self, input: Any, run_manager: CallbackManagerForChainRun
    ) -> tuple[str, dict[str, Any]]:
        kwargs = self._call_kwargs(input)
        return self.condenser.invoke(input, {"callbacks": run_manager.get_child()}), kwargs

    async def _aasked(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun
    ) -> tuple[str, dict[str, Any]]:
        kwargs = self._call_kwargs(input)
        query = await self.condenser.ainvoke(input, {"callbacks": run_manager.get_child()})
        return query, kwargs

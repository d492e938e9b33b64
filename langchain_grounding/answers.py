"""``DiscoveryEngineAnswer`` and ``DeveloperKnowledgeAnswer``: answerQuery as Runnables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig, RunnableSerializable
from pydantic import Field, PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_MAX_RETURN_RESULTS,
    DEFAULT_SERVING_CONFIG,
    DeveloperKnowledgeAnswerQuery,
    DiscoveryEngineAnswerQuery,
    DiscoveryEngineTarget,
    GroundedAnswer,
    InputError,
    SearchResultMode,
    answer_metadata,
)

from ._connection import DeveloperKnowledgeSettings, DiscoveryEngineSettings
from .documents import chunk_to_document

__all__ = ["DeveloperKnowledgeAnswer", "DiscoveryEngineAnswer", "answer_output"]

QUERY_KEYS = ("query", "question", "input")


def _query(input: Any) -> str:
    if isinstance(input, str):
        return input
    if isinstance(input, Mapping):
        for key in QUERY_KEYS:
            if isinstance(input.get(key), str):
                return str(input[key])
    raise InputError(
        f"expected the query as a str or under 'query'/'question'/'input', got {input!r:.80}",
        field="query",
    )


def answer_output(query: str, answer: GroundedAnswer) -> dict[str, Any]:
    """The output dict of both answer Runnables.

    ``query``; ``answer``: the text; ``documents``: the references as ``Document``s; every key
    of ``grounding_core.answer_metadata`` (``grounding_score``; ``citations`` and
    ``grounding_supports``, each with its text, char and byte spans, the positions of its
    documents (``reference_indices``) and their ids (``source_ids``); ``skipped_reasons``,
    ``session``, ...: the schema LlamaIndex's answer metadata has too);
    ``grounded_answer``: the full record (``grounding_core.answer_markdown`` renders it).
    """
    return {
        "query": query,
        "answer": answer.answer_text,
        "documents": [chunk_to_document(r) for r in answer.references],
        **answer_metadata(answer),
        "grounded_answer": answer,
    }


class _Answering(RunnableSerializable[str | dict[str, Any], dict[str, Any]]):
    """What both answer Runnables share: ``invoke``/``ainvoke`` around the core component."""

    _answering: DiscoveryEngineAnswerQuery | DeveloperKnowledgeAnswerQuery = PrivateAttr()

    @property
    def answering(self) -> DiscoveryEngineAnswerQuery | DeveloperKnowledgeAnswerQuery:
        """The core answerQuery component this Runnable wraps."""
        return self._answering

    def _invoke(self, input: Any) -> dict[str, Any]:
        query = _query(input)
        return answer_output(query, self._answering.answer(query))

    async def _ainvoke(self, input: Any) -> dict[str, Any]:
        query = _query(input)
        return answer_output(query, await self._answering.aanswer(query))

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


class DiscoveryEngineAnswer(DiscoveryEngineSettings, _Answering):
    """A grounded answer from Discovery Engine's ``answerQuery``: query in, answer out.

    Key init args:
        engine_id (the usual target of answerQuery) or data_store_id; project_id, location,
        collection, serving_config_id; include_citations, max_return_results, filter,
        preamble, model_version, answer_language_code, include_grounding_supports; and the
        connection fields.

    Usage:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineAnswer

            answerer = DiscoveryEngineAnswer(project_id="my-project", engine_id="docs-app")
            out = answerer.invoke("How do I open a file?")
            out["answer"], out["citations"][0]["start"], out["documents"][0].metadata["source"]

    Input: a str, or a dict with ``query``/``question``/``input``. Output: see
    ``answer_output``.
    """

    data_store_id: str | None = None
    engine_id: str | None = None
    collection: str | None = DEFAULT_COLLECTION
    serving_config_id: str = DEFAULT_SERVING_CONFIG
    include_citations: bool = True
    max_return_results: int = Field(default=DEFAULT_MAX_RETURN_RESULTS, ge=1, le=100)
    filter: str = ""
    search_mode: SearchResultMode = "chunks"
    preamble: str = ""
    model_version: str = ""
    answer_language_code: str = ""
    include_grounding_supports: bool = False

    _answering: DiscoveryEngineAnswerQuery = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> DiscoveryEngineAnswer:
        self._answering = DiscoveryEngineAnswerQuery.create(
            self.connection,
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
            include_citations=self.include_citations,
            max_return_results=self.max_return_results,
            filter=self.filter,
            search_mode=self.search_mode,
            preamble=self.preamble,
            model_version=self.model_version,
            answer_language_code=self.answer_language_code,
            include_grounding_supports=self.include_grounding_supports,
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store asked."""
        return self._answering.target


class DeveloperKnowledgeAnswer(DeveloperKnowledgeSettings, _Answering):
    """A grounded answer from the Developer Knowledge API's ``answerQuery``.

    .. code-block:: python

        from langchain_grounding import DeveloperKnowledgeAnswer

        out = DeveloperKnowledgeAnswer().invoke("How do I create a Cloud Storage bucket?")
        out["answer"], out["documents"][0].metadata["source"]

    ``filter`` (AIP-160, at most 500 characters) narrows the documents the answer may use.
    Output: see ``answer_output``.
    """

    filter: str = Field(default="", max_length=500)

    _answering: DeveloperKnowledgeAnswerQuery = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> DeveloperKnowledgeAnswer:
        self._answering = DeveloperKnowledgeAnswerQuery(self.connection, self.filter)
        return self

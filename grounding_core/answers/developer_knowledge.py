"""``DeveloperKnowledgeAnswerQuery``: the Developer Knowledge API's ``AnswerQuery`` over Google's
developer documentation, as ``GroundedAnswer`` records (sync and async).

>>> answering = DeveloperKnowledgeAnswerQuery(
...     DeveloperKnowledgeConnection(emulator_host="localhost:8123"),
...     filter='data_source = "firebase.google.com"',
... )
>>> answering.answer("How do I deploy a function?").answer_text  # doctest: +SKIP
'Run firebase deploy ...'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from google.developer_knowledge_v1 import DeveloperKnowledgeAsyncClient, DeveloperKnowledgeClient
from google.developer_knowledge_v1 import types as dk

from grounding_core._checks import check_query, check_text
from grounding_core._clients import DeveloperKnowledgeConnection
from grounding_core._convert import (
    chunk_from_developer_knowledge,
    segments,
    skipped_reasons,
    unique_names,
)
from grounding_core._errors import translate_errors
from grounding_core._records import AnswerCitation, GroundedAnswer
from grounding_core.search.developer_knowledge import DEVELOPER_KNOWLEDGE
from grounding_core.search.specs import MAX_DEVELOPER_KNOWLEDGE_TEXT


def answer_from_developer_knowledge(answer: Any) -> GroundedAnswer:
    """A Developer Knowledge ``Answer`` (raw pb) as a record."""
    text = answer.answer_text
    chunks = [r.document_reference.document_chunk for r in answer.references]
    references = unique_names([chunk_from_developer_knowledge(chunk) for chunk in chunks])

    def indices(item: Any) -> tuple[int, ...]:
        return tuple(s.reference_index for s in item.sources)

    citations = segments(
        text, answer.citations, what="citations", indices=indices, references=references
    )
    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in citations),
        references=references,
        # The Developer Knowledge Answer has no state and no skip reason: the call succeeded,
        # and an answer without text is a declined one.
        state="SUCCEEDED",
        skipped_reasons=skipped_reasons(text, ()),
    )


class DeveloperKnowledgeAnswerQuery:
    """The Developer Knowledge API's ``answerQuery`` over Google's developer documentation;
    ``filter`` (AIP-160, at most 500 characters) narrows the documents the answer may use."""

    def __init__(self, connection: DeveloperKnowledgeConnection, *, filter: str = "") -> None:
        self.connection = connection
        self.filter = check_text("filter", filter, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(endpoint={self.connection.endpoint!r})"

    def replace(self, *, filter: str) -> DeveloperKnowledgeAnswerQuery:
        """A copy with another ``filter`` (checked again)."""
        return type(self)(self.connection, filter=filter)

    def _request(self, query: str) -> dk.AnswerQueryRequest:
        query = check_query(query, maximum=MAX_DEVELOPER_KNOWLEDGE_TEXT)
        return dk.AnswerQueryRequest(query=query, filter=self.filter)

    def answer(self, query: str) -> GroundedAnswer:
        """A grounded answer to ``query``."""
        request, kwargs = self._request(query), self.connection.call_options.call_kwargs()
        with translate_errors("AnswerQuery", DEVELOPER_KNOWLEDGE):
            client = self.connection.client(DeveloperKnowledgeClient)
            response = client.answer_query(request=request, **kwargs)
        return answer_from_developer_knowledge(type(response).pb(response).answer)

    async def aanswer(self, query: str) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        request, kwargs = self._request(query), self.connection.call_options.async_call_kwargs()
        with translate_errors("AnswerQuery", DEVELOPER_KNOWLEDGE):
            client = self.connection.async_client(DeveloperKnowledgeAsyncClient)
            response = await client.answer_query(request=request, **kwargs)
        return answer_from_developer_knowledge(type(response).pb(response).answer)

    def stream(self, query: str) -> Iterator[str | GroundedAnswer]:
        """``answer`` shaped as ``DiscoveryEngineAnswerQuery.stream`` (no streaming method)."""
        yield from self.answer(query).stream()

    async def astream(self, query: str) -> AsyncIterator[str | GroundedAnswer]:
        """Async ``stream``, on Google's async client."""
        for item in (await self.aanswer(query)).stream():
            yield item

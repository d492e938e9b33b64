"""StreamAnswerQuery: a grounded answer as Discovery Engine generates it, then the whole record.

``stream_answer_query`` (sync) and ``astream_answer_query`` (async, on Google's async client)
yield the answer's new text as it arrives (``str``), then one ``GroundedAnswer``: the final
response's answer, its citations, references and session, with the whole text.

Google's *Stream answers* page says "the generated answer is broken into multiple parts that
are sent in sequence ... Typically, each response contains one sentence of the answer"; it does
not say whether the last response carries its last part or the whole answer. ``AnswerAssembler``
reads both: a response whose text begins with the text so far carries the answer so far (only
the rest is new); any other text is the next part.

The page's limitations are refused before the call (``InputError`` naming the field):
"You can't get grounding scores for streaming answers, nor can you choose to return only
well-grounded answers" (``include_grounding_supports``, ``filtering_level``); "You can't disable
rephrasing, nor can you change the maximum number of steps" (``disable_query_rephraser``,
``max_rephrase_steps``).

>>> assembler = AnswerAssembler()
>>> pb = de.AnswerQueryResponse.pb
>>> assembler.add(pb(de.AnswerQueryResponse(answer={"answer_text": "One. ", "state": 4})))
'One. '
>>> final = de.AnswerQueryResponse(answer={"answer_text": "One. Two.", "state": 3})
>>> assembler.add(pb(final)), assembler.answer().answer_text, assembler.answer().state
('Two.', 'One. Two.', 'SUCCEEDED')
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from google.cloud import discoveryengine_v1 as de

from .answers import answer_query_request, answer_resource, discovery_engine_answer
from .clients import DiscoveryEngineClients
from .errors import InputError, translate_errors
from .records import GroundedAnswer
from .settings import CallOptions, DiscoveryEngineTarget
from .specs import AnswerSpec

__all__ = [
    "AnswerAssembler",
    "AnswerStreamItem",
    "astream_answer_query",
    "check_stream_spec",
    "stream_answer_query",
    "whole_answer",
]

AnswerStreamItem = str | GroundedAnswer
"""What an answer stream yields: new answer text, then (last) the whole ``GroundedAnswer``."""

OPERATION = "StreamAnswerQuery"

# AnswerSpec fields the streaming method cannot honour (Google's "Stream answers" limitations),
# each with the value that leaves it alone.
_NOT_STREAMED = {
    "include_grounding_supports": (
        False,
        "You can't get grounding scores for streaming answers",
    ),
    "filtering_level": (
        None,
        "you can't choose to return only well-grounded answers",
    ),
    "disable_query_rephraser": (False, "You can't disable rephrasing"),
    "max_rephrase_steps": (None, "the number of rephrase steps is one"),
}


def whole_answer(answer: GroundedAnswer) -> Iterator[AnswerStreamItem]:
    """A whole answer in the shape of an answer stream (its text, then the record): what the
    answers of methods that do not stream give a streaming caller."""
    if answer.answer_text:
        yield answer.answer_text
    yield answer


def check_stream_spec(spec: AnswerSpec) -> AnswerSpec:
    """``spec`` if StreamAnswerQuery can honour it, else an ``InputError`` naming the first
    field that Google's streaming answers do not support."""
    for field, (neutral, reason) in _NOT_STREAMED.items():
        if getattr(spec, field) != neutral:
            raise InputError(
                f"{field} is not available for streamed answers (Google's 'Stream answers' "
                f"limitations: {reason}): leave it at {neutral!r} to stream, or call "
                "answer()/invoke() for a whole answer with it",
                field=field,
            )
    return spec


class AnswerAssembler:
    """Reads a StreamAnswerQuery's responses into the new text of each and the final record
    (see the module docstring)."""

    def __init__(self) -> None:
        self.text = ""
        self._last: Any = None
        self._session: Any = None

    def add(self, response: Any) -> str:
        """The new answer text of ``response`` (a raw ``AnswerQueryResponse``; "" if none)."""
        self._last = response
        if response.HasField("session"):
            self._session = response.session
        part: str = response.answer.answer_text
        delta = part[len(self.text) :] if part.startswith(self.text) else part
        self.text += delta
        return delta

    def answer(self) -> GroundedAnswer:
        """The answer of the last response, with the whole text (an empty stream: an answer
        with no text, ``EMPTY_ANSWER``)."""
        final = de.AnswerQueryResponse.pb()()
        if self._last is not None:
            final.CopyFrom(self._last)
        final.answer.answer_text = self.text
        if self._session is not None:
            final.session.CopyFrom(self._session)
        return discovery_engine_answer(final)


def stream_answer_query(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: AnswerSpec = AnswerSpec(),
    options: CallOptions = CallOptions(),
) -> Iterator[AnswerStreamItem]:
    """The answer to ``query`` from ``target`` as it streams: new text (``str``), then the
    ``GroundedAnswer``. Closing the iterator early cancels the call."""
    request = answer_query_request(target, query, check_stream_spec(spec))
    assembler = AnswerAssembler()
    with translate_errors(OPERATION, answer_resource(request)):
        stream: Any = clients.conversational_search().stream_answer_query(
            request=request, **options.call_kwargs()
        )
        try:
            for response in stream:
                delta = assembler.add(type(response).pb(response))
                if delta:
                    yield delta
        finally:
            stream.cancel()  # a no-op once the stream has ended (gRPC's call.cancel)
    yield assembler.answer()


async def astream_answer_query(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    spec: AnswerSpec = AnswerSpec(),
    options: CallOptions = CallOptions(),
) -> AsyncIterator[AnswerStreamItem]:
    """Async ``stream_answer_query``, on Google's async client."""
    request = answer_query_request(target, query, check_stream_spec(spec))
    assembler = AnswerAssembler()
    with translate_errors(OPERATION, answer_resource(request)):
        stream: Any = await clients.conversational_search_async().stream_answer_query(
            request=request, **options.async_call_kwargs()
        )
        try:
            async for response in stream:
                delta = assembler.add(type(response).pb(response))
                if delta:
                    yield delta
        finally:
            stream.cancel()
    yield assembler.answer()

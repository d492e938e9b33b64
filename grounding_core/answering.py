"""Grounded answers as one component: a connection, what to ask and how, the sync and async call.

``DiscoveryEngineAnswerQuery`` (an engine or data store, ``AnswerQuery``) and
``DeveloperKnowledgeAnswerQuery`` (the Developer Knowledge ``AnswerQuery``) hold everything that
is not I/O; ``answer`` and ``aanswer`` make the call (``aanswer`` on Google's async client) and
return a ``GroundedAnswer``. The LangChain Runnables and LlamaIndex query engines wrap one of
them and only turn the record into their framework's output, with ``answer_metadata`` as it is.

Options are checked when the component is built: ``ConfigurationError`` for the target (a
session of another engine or data store), ``InputError`` for the answer options (both
``ValueError``, both naming the field). ``DiscoveryEngineAnswerQueryArgs`` is every keyword
argument of ``DiscoveryEngineAnswerQuery.connect`` (connection, target, ``AnswerOptions``) as
one type, which the framework components take as ``**arguments``:

>>> import inspect
>>> parameters = inspect.signature(DiscoveryEngineAnswerQuery.create).parameters
>>> sorted(DiscoveryEngineAnswerQueryArgs.__optional_keys__) == sorted(
...     [*DiscoveryEngineConnectionArgs.__optional_keys__, *AnswerOptions.__optional_keys__,
...      *(name for name in parameters if name not in ("connection", "options"))]
... )
True

>>> answering = DiscoveryEngineAnswerQuery.create(
...     DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:8123"),
...     engine_id="docs-app",
...     include_grounding_supports=True,
... )
>>> answering.spec.max_return_results, answering.spec.include_grounding_supports
(10, True)
>>> answering.answer("How do I open a file?").answer_text  # doctest: +SKIP
'Use the built-in open() function ...'
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .answer_stream import (
    AnswerStreamItem,
    astream_answer_query,
    check_stream_spec,
    stream_answer_query,
    whole_answer,
)
from .answers import (
    aanswer_developer_query,
    aanswer_query,
    answer_developer_query,
    answer_query,
    check_developer_filter,
)
from .connection import (
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
)
from .records import GroundedAnswer
from .retrieval import DiscoveryEngineTargetArgs, connect_arguments
from .settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG, DiscoveryEngineTarget
from .specs import AnswerOptions, AnswerSpec

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DeveloperKnowledgeAnswerQuery",
    "DiscoveryEngineAnswerQuery",
    "DiscoveryEngineAnswerQueryArgs",
]


class DiscoveryEngineAnswerQueryArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, AnswerOptions, total=False
):
    """The keyword arguments of ``DiscoveryEngineAnswerQuery.connect``: the connection's, the
    target's (``DiscoveryEngineTargetArgs``: ``engine_id`` or ``data_store_id``,
    ``collection``, ``serving_config_id``) and the answer options (``AnswerOptions``)."""


@dataclass(frozen=True, slots=True)
class DiscoveryEngineAnswerQuery:
    """Discovery Engine ``answerQuery`` on an engine (the usual target) or a data store.

    ``spec.session`` is the session every query is asked in; ``answer(query, session=...)``
    asks one query in another (``"-"`` starts one: the answer's ``session`` names it).
    """

    connection: DiscoveryEngineConnection
    target: DiscoveryEngineTarget
    spec: AnswerSpec

    def __post_init__(self) -> None:
        if self.spec.session is not None:
            self.target.session_path(self.spec.session)  # a session of another target: fail now

    @classmethod
    def create(
        cls,
        connection: DiscoveryEngineConnection,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        **options: Unpack[AnswerOptions],
    ) -> DiscoveryEngineAnswerQuery:
        """The answers of ``engine_id`` or ``data_store_id`` (exactly one) over ``connection``;
        ``options`` are the fields of ``AnswerSpec`` (``max_return_results``, ``filter``,
        ``include_grounding_supports``, ``session``, ...), with its defaults."""
        target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        return cls(connection, target, AnswerSpec(**options))  # type: ignore[arg-type]

    @classmethod
    def connect(
        cls, **arguments: Unpack[DiscoveryEngineAnswerQueryArgs]
    ) -> DiscoveryEngineAnswerQuery:
        """``create`` over a new connection: ``arguments`` are ``DiscoveryEngineConnection
        .create``'s and ``create``'s, in one set (as the framework components take them)."""
        connection, rest = connect_arguments(arguments)
        return cls.create(connection, **rest)

    def _spec(self, session: str | None) -> AnswerSpec:
        if session is None:
            return self.spec
        spec = dataclasses.replace(self.spec, session=session)
        self.target.session_path(session)
        return spec

    def answer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """A grounded answer to ``query`` (in ``session`` when given, else in
        ``spec.session``)."""
        return answer_query(
            self.connection.clients,
            self.target,
            query,
            self._spec(session),
            self.connection.call_options,
        )

    async def aanswer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        return await aanswer_query(
            self.connection.clients,
            self.target,
            query,
            self._spec(session),
            self.connection.call_options,
        )

    def stream(self, query: str, *, session: str | None = None) -> Iterator[AnswerStreamItem]:
        """``answer`` as StreamAnswerQuery streams it: new text (``str``) as it arrives, then
        the ``GroundedAnswer`` (``grounding_core.answer_stream``). Options Google's streamed
        answers cannot honour are refused here, before any call (``check_stream_spec``)."""
        return stream_answer_query(
            self.connection.clients,
            self.target,
            query,
            check_stream_spec(self._spec(session)),
            self.connection.call_options,
        )

    def astream(self, query: str, *, session: str | None = None) -> AsyncIterator[AnswerStreamItem]:
        """Async ``stream``, on Google's async client."""
        return astream_answer_query(
            self.connection.clients,
            self.target,
            query,
            check_stream_spec(self._spec(session)),
            self.connection.call_options,
        )


@dataclass(frozen=True, slots=True)
class DeveloperKnowledgeAnswerQuery:
    """The Developer Knowledge API's ``answerQuery`` over Google's developer documentation.

    ``filter`` (AIP-160, at most 500 characters) narrows the documents the answer may use.
    """

    connection: DeveloperKnowledgeConnection
    filter: str = ""

    def __post_init__(self) -> None:
        check_developer_filter(self.filter)

    def answer(self, query: str) -> GroundedAnswer:
        """A grounded answer to ``query``."""
        return answer_developer_query(
            self.connection.clients, query, self.filter, self.connection.call_options
        )

    async def aanswer(self, query: str) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        return await aanswer_developer_query(
            self.connection.clients, query, self.filter, self.connection.call_options
        )

    def stream(self, query: str) -> Iterator[AnswerStreamItem]:
        """``answer`` as a stream, in the shape of ``DiscoveryEngineAnswerQuery.stream``: the
        Developer Knowledge API has no streaming method, so the whole text comes at once."""
        yield from whole_answer(self.answer(query))

    async def astream(self, query: str) -> AsyncIterator[AnswerStreamItem]:
        """Async ``stream``, on Google's async client."""
        for item in whole_answer(await self.aanswer(query)):
            yield item

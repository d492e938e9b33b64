"""``DiscoveryEngineAnswerQuery``: Discovery Engine's grounded answers (``AnswerQuery``, and
``StreamAnswerQuery`` as it streams), their conversation sessions (``SessionService``).

Every option is a field of ``AnswerSpec``, named after its ``AnswerQueryRequest`` field and
checked against Google's limits when the component is built (``InputError``; a session of
another engine or data store: ``ConfigurationError``). ``answer`` and ``aanswer``, ``stream``
and ``astream`` share the request and the conversion and differ in the client call only.

Streamed answers have limits, refused before the call (``InputError`` naming the field): "You
can't get grounding scores for streaming answers, nor can you choose to return only
well-grounded answers" (``include_grounding_supports``, ``filtering_level``); "You can't
disable rephrasing, nor can you change the maximum number of steps"
(``disable_query_rephraser``, ``max_rephrase_steps``) (Google's "Stream answers").

A session belongs to an engine or a data store; it is named by its id or its full resource name
(``GroundedAnswer.session`` after an answer asked with ``session="-"``). Each answered query in
a session is a ``Turn``; AnswerQuery reads the earlier turns to understand a follow-up.

>>> answering = DiscoveryEngineAnswerQuery(
...     DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123"),
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
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypedDict, get_args

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import (
    MAX_USER_PSEUDO_ID,
    check_choice,
    check_count,
    check_fields,
    check_query,
    check_request_size,
    check_text,
)
from grounding_core._clients import DiscoveryEngineConnection, DiscoveryEngineConnectionArgs
from grounding_core._errors import InputError, translate_errors
from grounding_core._records import GroundedAnswer, Session
from grounding_core._settings import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    DiscoveryEngineTarget,
)
from grounding_core.search.discovery_engine import DiscoveryEngineTargetArgs, boost_spec
from grounding_core.search.specs import (
    SEARCH_MODES,
    DataStoreSpec,
    SearchResultMode,
    keep_boost_spec,
    keep_data_store_specs,
    keep_tuple,
)

from .responses import AnswerAssembler, discovery_engine_answer, session_from_proto

if TYPE_CHECKING:
    from typing_extensions import Unpack

# How many search results an answer may draw on unless told.
DEFAULT_MAX_RETURN_RESULTS = 10
# QueryRephraserSpec.max_rephrase_steps: "The max number is 5 steps."
MAX_REPHRASE_STEPS = 5

QueryClassificationType = Literal[
    "adversarial_query",
    "non_answer_seeking_query",
    "jail_breaking_query",
    "non_answer_seeking_query_v2",
    "user_defined_classification_query",
]
FilteringLevel = Literal["low", "high"]
QUERY_CLASSIFICATION_TYPES: tuple[QueryClassificationType, ...] = get_args(QueryClassificationType)
FILTERING_LEVELS: tuple[FilteringLevel, ...] = get_args(FilteringLevel)


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """Options of a Discovery Engine ``answerQuery`` (Google's ``AnswerQueryRequest`` field
    docs; each option is named after its field).

    Search: ``max_return_results`` (1..100), ``filter``, ``boost_spec`` (a ``BoostSpec`` as a
    dict), ``order_by``, ``data_store_specs`` (``DataStoreSpec``s, for engines over several
    data stores) and ``search_mode``: ``"chunks"`` by default (this project grounds on chunks),
    ``"documents"``, or ``None`` to send no mode (Google's default, documents, as Google's
    answer sample does).
    Query understanding: ``disable_query_rephraser``, ``max_rephrase_steps`` (1..5),
    ``query_classification_types``, ``disable_spell_correction``.
    Answer generation: ``include_citations``, ``preamble``, ``model_version``,
    ``answer_language_code``, the ``ignore_*`` flags, ``safety_filtering``
    (``safety_spec.enable``), ``related_questions``; grounding: ``include_grounding_supports``
    (also fills ``grounding_score``), ``filtering_level`` (``"low"``/``"high"``).
    ``user_pseudo_id`` (at most 128 characters) identifies the visitor; ``session``: ``None``
    (sessionless), ``"-"`` (start a session) or a session id or resource name (continue it).

    >>> AnswerSpec(max_return_results=5, include_citations=True).max_return_results
    5
    """

    include_citations: bool = True
    max_return_results: int = DEFAULT_MAX_RETURN_RESULTS
    filter: str = ""
    boost_spec: Mapping[str, Any] | None = None
    order_by: str = ""
    search_mode: SearchResultMode | None = "chunks"
    data_store_specs: tuple[DataStoreSpec, ...] = ()
    preamble: str = ""
    model_version: str = ""
    answer_language_code: str = ""
    include_grounding_supports: bool = False
    filtering_level: FilteringLevel | None = None
    ignore_adversarial_query: bool = False
    ignore_non_answer_seeking_query: bool = False
    ignore_jail_breaking_query: bool = False
    ignore_low_relevant_content: bool | None = None
    safety_filtering: bool = False
    related_questions: bool = False
    disable_query_rephraser: bool = False
    max_rephrase_steps: int | None = None
    query_classification_types: tuple[QueryClassificationType, ...] = ()
    disable_spell_correction: bool = False
    user_pseudo_id: str = ""
    session: str | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        check_count("max_return_results", self.max_return_results, minimum=1, maximum=100)
        check_choice("search_mode", self.search_mode, (None, *SEARCH_MODES))
        keep_boost_spec(self)
        keep_data_store_specs(self)
        check_choice("filtering_level", self.filtering_level, (None, *FILTERING_LEVELS))
        if self.max_rephrase_steps is not None:
            check_count(
                "max_rephrase_steps", self.max_rephrase_steps, minimum=1, maximum=MAX_REPHRASE_STEPS
            )
        for kind in keep_tuple(self, "query_classification_types"):
            check_choice("query_classification_types", kind, QUERY_CLASSIFICATION_TYPES)
        check_text("user_pseudo_id", self.user_pseudo_id, maximum=MAX_USER_PSEUDO_ID)
        if self.session is not None and not self.session.strip():
            raise InputError(
                "session is empty: give None (no session), '-' (start one) or a session id",
                field="session",
            )


class AnswerOptions(TypedDict, total=False):
    """The fields of ``AnswerSpec`` as keyword arguments (any may be left out: ``AnswerSpec``'s
    defaults apply), for components that take them as ``**options`` and hand them on. A
    sequence option may be any sequence (the spec keeps a tuple)."""

    include_citations: bool
    max_return_results: int
    filter: str
    boost_spec: Mapping[str, Any] | None
    order_by: str
    search_mode: SearchResultMode | None
    data_store_specs: Sequence[DataStoreSpec]
    preamble: str
    model_version: str
    answer_language_code: str
    include_grounding_supports: bool
    filtering_level: FilteringLevel | None
    ignore_adversarial_query: bool
    ignore_non_answer_seeking_query: bool
    ignore_jail_breaking_query: bool
    ignore_low_relevant_content: bool | None
    safety_filtering: bool
    related_questions: bool
    disable_query_rephraser: bool
    max_rephrase_steps: int | None
    query_classification_types: Sequence[QueryClassificationType]
    disable_spell_correction: bool
    user_pseudo_id: str
    session: str | None


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


_REQUEST = de.AnswerQueryRequest
SEARCH_MODES_ENUM = {
    "chunks": de.SearchRequest.ContentSearchSpec.SearchResultMode.CHUNKS,
    "documents": de.SearchRequest.ContentSearchSpec.SearchResultMode.DOCUMENTS,
}
_CLASSIFICATION_TYPE = _REQUEST.QueryUnderstandingSpec.QueryClassificationSpec.Type
_CLASSIFICATION_TYPES = {
    kind: getattr(_CLASSIFICATION_TYPE, kind.upper()) for kind in QUERY_CLASSIFICATION_TYPES
}
_FILTERING_LEVELS = {
    level: getattr(_REQUEST.GroundingSpec.FilteringLevel, f"FILTERING_LEVEL_{level.upper()}")
    for level in FILTERING_LEVELS
}


def _data_store_spec(target: DiscoveryEngineTarget, spec: DataStoreSpec) -> dict[str, Any]:
    message: dict[str, Any] = {
        "data_store": target.data_store_path(spec.data_store),
        "filter": spec.filter,
    }
    if spec.boost_spec is not None:
        message["boost_spec"] = de.SearchRequest.BoostSpec.wrap(boost_spec(spec.boost_spec))
    return message


def _search_params(target: DiscoveryEngineTarget, spec: AnswerSpec) -> dict[str, Any]:
    params: dict[str, Any] = {
        "max_return_results": spec.max_return_results,
        "filter": spec.filter,
        "order_by": spec.order_by,
        "data_store_specs": [_data_store_spec(target, s) for s in spec.data_store_specs],
    }
    # No mode sent: Google's default (documents), as Google's answer sample does.
    if spec.search_mode is not None:
        params["search_result_mode"] = SEARCH_MODES_ENUM[spec.search_mode]
    if spec.boost_spec is not None:
        params["boost_spec"] = de.SearchRequest.BoostSpec.wrap(boost_spec(spec.boost_spec))
    return params


def _answer_generation(spec: AnswerSpec) -> dict[str, Any]:
    generation: dict[str, Any] = {
        "include_citations": spec.include_citations,
        "answer_language_code": spec.answer_language_code,
        "ignore_adversarial_query": spec.ignore_adversarial_query,
        "ignore_non_answer_seeking_query": spec.ignore_non_answer_seeking_query,
        "ignore_jail_breaking_query": spec.ignore_jail_breaking_query,
        "prompt_spec": {"preamble": spec.preamble},
        "model_spec": {"model_version": spec.model_version},
    }
    if spec.ignore_low_relevant_content is not None:
        generation["ignore_low_relevant_content"] = spec.ignore_low_relevant_content
    return generation


def _query_understanding(spec: AnswerSpec) -> dict[str, Any]:
    return {
        "query_rephraser_spec": {
            "disable": spec.disable_query_rephraser,
            # Unset (0) is Google's default: one step.
            "max_rephrase_steps": spec.max_rephrase_steps or 0,
        },
        "query_classification_spec": {
            "types": [_CLASSIFICATION_TYPES[kind] for kind in spec.query_classification_types]
        },
        "disable_spell_correction": spec.disable_spell_correction,
    }


def answer_query_request(
    target: DiscoveryEngineTarget, query: str, spec: AnswerSpec = AnswerSpec()
) -> de.AnswerQueryRequest:
    """The Discovery Engine ``AnswerQueryRequest`` for ``query``."""
    grounding: dict[str, Any] = {"include_grounding_supports": spec.include_grounding_supports}
    if spec.filtering_level is not None:
        grounding["filtering_level"] = _FILTERING_LEVELS[spec.filtering_level]
    request = de.AnswerQueryRequest(
        serving_config=target.serving_config_path,
        query={"text": check_query(query)},
        session=target.session_path(spec.session) if spec.session is not None else "",
        safety_spec={"enable": spec.safety_filtering},
        related_questions_spec={"enable": spec.related_questions},
        grounding_spec=grounding,
        answer_generation_spec=_answer_generation(spec),
        search_spec={"search_params": _search_params(target, spec)},
        query_understanding_spec=_query_understanding(spec),
        user_pseudo_id=spec.user_pseudo_id,
    )
    check_request_size("AnswerQuery", de.AnswerQueryRequest.pb(request))
    return request


def answer_resource(request: de.AnswerQueryRequest) -> str:
    """What errors name: the serving config, and the session when there is one."""
    if request.session:
        return f"{request.serving_config} (session {request.session})"
    return request.serving_config


class DiscoveryEngineAnswerQueryArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, AnswerOptions, total=False
):
    """Every keyword argument of a Discovery Engine answer in one set: the connection's, the
    target's and the answer options, as the framework components take them."""


class DiscoveryEngineAnswerQuery:
    """Discovery Engine ``answerQuery`` on an engine (the usual target) or a data store.

    Built over a ``DiscoveryEngineConnection`` for ``engine_id`` or ``data_store_id`` (exactly
    one), with ``AnswerSpec``'s fields as options. ``spec.session`` is the session every query
    is asked in; ``answer(query, session=...)`` asks one query in another (``"-"`` starts one:
    the answer's ``session`` names it).
    """

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        **options: Unpack[AnswerOptions],
    ) -> None:
        self.connection = connection
        self.target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        self.spec = AnswerSpec(**options)  # type: ignore[arg-type]
        if self.spec.session is not None:
            self.target.session_path(self.spec.session)  # a session of another target: fail now

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"endpoint={self.connection.endpoint!r})"
        )

    def replace(self, **changes: Any) -> DiscoveryEngineAnswerQuery:
        """A copy whose spec has some options changed (validated again)."""
        copy = object.__new__(type(self))
        copy.connection, copy.target = self.connection, self.target
        copy.spec = dataclasses.replace(self.spec, **changes)
        return copy

    def _request(self, query: str, session: str | None, *, streamed: bool = False) -> Any:
        spec = self.spec if session is None else dataclasses.replace(self.spec, session=session)
        return answer_query_request(
            self.target, query, check_stream_spec(spec) if streamed else spec
        )

    def answer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """A grounded answer to ``query`` (in ``session`` when given, else in
        ``spec.session``)."""
        request = self._request(query, session)
        with translate_errors("AnswerQuery", answer_resource(request)):
            client = self.connection.client(de.ConversationalSearchServiceClient)
            response = client.answer_query(
                request=request, **self.connection.call_options.call_kwargs()
            )
        return discovery_engine_answer(type(response).pb(response))

    async def aanswer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        request = self._request(query, session)
        with translate_errors("AnswerQuery", answer_resource(request)):
            client = self.connection.async_client(de.ConversationalSearchServiceAsyncClient)
            response = await client.answer_query(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
        return discovery_engine_answer(type(response).pb(response))

    def stream(self, query: str, *, session: str | None = None) -> Iterator[str | GroundedAnswer]:
        """``answer`` as StreamAnswerQuery streams it: new text (``str``) as it arrives, then
        the ``GroundedAnswer``. Options streamed answers cannot honour are refused here, before
        any call; closing the iterator early cancels the call."""
        return self._stream(self._request(query, session, streamed=True))

    def astream(
        self, query: str, *, session: str | None = None
    ) -> AsyncIterator[str | GroundedAnswer]:
        """Async ``stream``, on Google's async client."""
        return self._astream(self._request(query, session, streamed=True))

    def _stream(self, request: Any) -> Iterator[str | GroundedAnswer]:
        assembler = AnswerAssembler()
        with translate_errors("StreamAnswerQuery", answer_resource(request)):
            client = self.connection.client(de.ConversationalSearchServiceClient)
            stream: Any = client.stream_answer_query(
                request=request, **self.connection.call_options.call_kwargs()
            )
            try:
                for response in stream:
                    delta = assembler.add(type(response).pb(response))
                    if delta:
                        yield delta
            finally:
                stream.cancel()  # a no-op once the stream has ended (gRPC's call.cancel)
        yield assembler.answer()

    async def _astream(self, request: Any) -> AsyncIterator[str | GroundedAnswer]:
        assembler = AnswerAssembler()
        with translate_errors("StreamAnswerQuery", answer_resource(request)):
            client = self.connection.async_client(de.ConversationalSearchServiceAsyncClient)
            stream: Any = await client.stream_answer_query(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
            try:
                async for response in stream:
                    delta = assembler.add(type(response).pb(response))
                    if delta:
                        yield delta
            finally:
                stream.cancel()
        yield assembler.answer()

    # -- sessions (SessionService) -------------------------------------------------------------

    def _session_name(self, session: str) -> str:
        if session == "-":
            raise InputError(
                "session '-' names no session (it asks AnswerQuery to start one): give the id or "
                "resource name of an existing session",
                field="session",
            )
        return self.target.session_path(session)

    def _session_call(self, method: str, resource: str, request: Any) -> Any:
        with translate_errors(method, resource):
            client = self.connection.client(de.SessionServiceClient)
            call = getattr(client, _SESSION_METHODS[method])
            return call(request=request, **self.connection.call_options.call_kwargs())

    async def _asession_call(self, method: str, resource: str, request: Any) -> Any:
        with translate_errors(method, resource):
            client = self.connection.async_client(de.SessionServiceAsyncClient)
            call = getattr(client, _SESSION_METHODS[method])
            response = await call(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
            if method == "ListSessions":  # an async pager: read every page here
                return [session async for session in response]
            return response

    def _create_request(self, user_pseudo_id: str, display_name: str) -> Any:
        return de.CreateSessionRequest(
            parent=self.target.parent_path,
            session={
                "user_pseudo_id": check_text(
                    "user_pseudo_id", user_pseudo_id, maximum=MAX_USER_PSEUDO_ID
                ),
                "display_name": check_text("display_name", display_name),
            },
        )

    def create_session(self, *, user_pseudo_id: str = "", display_name: str = "") -> Session:
        """A new, empty session (AnswerQuery with ``session="-"`` also starts one)."""
        request = self._create_request(user_pseudo_id, display_name)
        return _session(self._session_call("CreateSession", self.target.parent_path, request))

    async def acreate_session(self, *, user_pseudo_id: str = "", display_name: str = "") -> Session:
        """Async ``create_session``, on Google's async client."""
        request = self._create_request(user_pseudo_id, display_name)
        response = await self._asession_call("CreateSession", self.target.parent_path, request)
        return _session(response)

    def get_session(self, session: str, *, include_answer_details: bool = False) -> Session:
        """The session named ``session``, with its turns (and each turn's answer with
        ``include_answer_details``)."""
        name = self._session_name(session)
        request = de.GetSessionRequest(name=name, include_answer_details=include_answer_details)
        return _session(self._session_call("GetSession", name, request))

    async def aget_session(self, session: str, *, include_answer_details: bool = False) -> Session:
        """Async ``get_session``, on Google's async client."""
        name = self._session_name(session)
        request = de.GetSessionRequest(name=name, include_answer_details=include_answer_details)
        return _session(await self._asession_call("GetSession", name, request))

    def list_sessions(self, *, filter: str = "", order_by: str = "") -> tuple[Session, ...]:
        """Every session (all pages); ``filter`` and ``order_by`` as ``ListSessionsRequest``
        documents them (e.g. ``'user_pseudo_id = "visitor-1"'``, ``"update_time desc"``)."""
        parent = self.target.parent_path
        request = de.ListSessionsRequest(parent=parent, filter=filter, order_by=order_by)
        with translate_errors("ListSessions", parent):
            return tuple(map(_session, self._session_call("ListSessions", parent, request)))

    async def alist_sessions(self, *, filter: str = "", order_by: str = "") -> tuple[Session, ...]:
        """Async ``list_sessions``, on Google's async client."""
        parent = self.target.parent_path
        request = de.ListSessionsRequest(parent=parent, filter=filter, order_by=order_by)
        return tuple(map(_session, await self._asession_call("ListSessions", parent, request)))

    def delete_session(self, session: str) -> None:
        """Delete the session named ``session`` (``NotFoundError`` when there is none)."""
        name = self._session_name(session)
        self._session_call("DeleteSession", name, de.DeleteSessionRequest(name=name))

    async def adelete_session(self, session: str) -> None:
        """Async ``delete_session``, on Google's async client."""
        name = self._session_name(session)
        await self._asession_call("DeleteSession", name, de.DeleteSessionRequest(name=name))


_SESSION_METHODS = {
    "CreateSession": "create_session",
    "GetSession": "get_session",
    "ListSessions": "list_sessions",
    "DeleteSession": "delete_session",
}


def _session(response: Any) -> Session:
    return session_from_proto(type(response).pb(response))

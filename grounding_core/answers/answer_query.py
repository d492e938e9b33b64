"""``DiscoveryEngineAnswerQuery``: Discovery Engine's grounded answers (``AnswerQuery``, and
``StreamAnswerQuery`` as it streams), their conversation sessions (``SessionService``).

A session belongs to an engine or a data store, named by its id or resource name
(``GroundedAnswer.session`` after an answer asked with ``session="-"``); AnswerQuery reads its
earlier turns (``Turn``s) to understand a follow-up.

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
from grounding_core._settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG
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

    from grounding_core._settings import DiscoveryEngineTarget

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


@dataclass(frozen=True, slots=True)
class AnswerSpec:
    """Options of a Discovery Engine ``answerQuery``, each named after its
    ``AnswerQueryRequest`` field (Google's field docs apply).

    ``max_return_results``: 1..100; ``boost_spec``: a ``BoostSpec`` as a dict;
    ``data_store_specs``: for engines over several data stores; ``search_mode``: ``"chunks"``
    (the default: this project grounds on chunks), ``"documents"`` or ``None`` (none sent:
    Google's default, documents). ``max_rephrase_steps``: 1..5. ``safety_filtering`` is
    ``safety_spec.enable``; ``include_grounding_supports`` also fills ``grounding_score``.
    ``user_pseudo_id``: at most 128 characters. ``session``: ``None`` (sessionless), ``"-"``
    (start a session) or a session id or resource name (continue it).
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
        check_choice("filtering_level", self.filtering_level, (None, *get_args(FilteringLevel)))
        if (steps := self.max_rephrase_steps) is not None:
            check_count("max_rephrase_steps", steps, minimum=1, maximum=MAX_REPHRASE_STEPS)
        for kind in keep_tuple(self, "query_classification_types"):
            check_choice("query_classification_types", kind, get_args(QueryClassificationType))
        check_text("user_pseudo_id", self.user_pseudo_id, maximum=MAX_USER_PSEUDO_ID)
        if self.session is not None and not self.session.strip():
            raise InputError(
                "session is empty: give None (no session), '-' (start one) or a session id",
                field="session",
            )


class AnswerOptions(TypedDict, total=False):
    """The fields of ``AnswerSpec`` as keyword arguments, for components that take them as
    ``**options`` (any may be left out; a sequence option may be any sequence)."""

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


# AnswerSpec fields StreamAnswerQuery cannot honour (Google's "Stream answers" limitations),
# each with the value that leaves it alone.
_NOT_STREAMED = {
    "include_grounding_supports": (False, "You can't get grounding scores for streaming answers"),
    "filtering_level": (None, "you can't choose to return only well-grounded answers"),
    "disable_query_rephraser": (False, "You can't disable rephrasing"),
    "max_rephrase_steps": (None, "the number of rephrase steps is one"),
}


def check_stream_spec(spec: AnswerSpec) -> AnswerSpec:
    """``spec`` if StreamAnswerQuery can honour it, else an ``InputError`` naming the field."""
    for field, (neutral, reason) in _NOT_STREAMED.items():
        if getattr(spec, field) != neutral:
            raise InputError(
                f"{field} is not available for streamed answers (Google's 'Stream answers' "
                f"limitations: {reason}): leave it at {neutral!r} to stream, or call "
                "answer()/invoke() for a whole answer with it",
                field=field,
            )
    return spec


_MODE = de.SearchRequest.ContentSearchSpec.SearchResultMode
_TYPE = de.AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type
_LEVEL = de.AnswerQueryRequest.GroundingSpec.FilteringLevel


def answer_query_request(
    target: DiscoveryEngineTarget, query: str, spec: AnswerSpec = AnswerSpec()
) -> de.AnswerQueryRequest:
    """The Discovery Engine ``AnswerQueryRequest`` for ``query``."""
    # A None is not sent: no search mode is Google's default (documents), as in its sample.
    level, mode = spec.filtering_level, spec.search_mode
    request = de.AnswerQueryRequest(
        serving_config=target.serving_config_path,
        query={"text": check_query(query)},
        session=target.session_path(spec.session) if spec.session is not None else "",
        safety_spec={"enable": spec.safety_filtering},
        related_questions_spec={"enable": spec.related_questions},
        grounding_spec={
            "include_grounding_supports": spec.include_grounding_supports,
            "filtering_level": level and getattr(_LEVEL, f"FILTERING_LEVEL_{level.upper()}"),
        },
        answer_generation_spec={
            "include_citations": spec.include_citations,
            "answer_language_code": spec.answer_language_code,
            "ignore_adversarial_query": spec.ignore_adversarial_query,
            "ignore_non_answer_seeking_query": spec.ignore_non_answer_seeking_query,
            "ignore_jail_breaking_query": spec.ignore_jail_breaking_query,
            "ignore_low_relevant_content": spec.ignore_low_relevant_content,
            "prompt_spec": {"preamble": spec.preamble},
            "model_spec": {"model_version": spec.model_version},
        },
        search_spec={
            "search_params": {
                "max_return_results": spec.max_return_results,
                "filter": spec.filter,
                "order_by": spec.order_by,
                "data_store_specs": [
                    {
                        "data_store": target.data_store_path(store.data_store),
                        "filter": store.filter,
                        "boost_spec": boost_spec(store.boost_spec),
                    }
                    for store in spec.data_store_specs
                ],
                "search_result_mode": mode and getattr(_MODE, mode.upper()),
                "boost_spec": boost_spec(spec.boost_spec),
            }
        },
        query_understanding_spec={
            "query_rephraser_spec": {
                "disable": spec.disable_query_rephraser,
                "max_rephrase_steps": spec.max_rephrase_steps or 0,  # unset: Google's, one step
            },
            "query_classification_spec": {
                "types": [getattr(_TYPE, t.upper()) for t in spec.query_classification_types]
            },
            "disable_spell_correction": spec.disable_spell_correction,
        },
        user_pseudo_id=spec.user_pseudo_id,
    )
    check_request_size("AnswerQuery", de.AnswerQueryRequest.pb(request))
    return request


def answer_resource(request: de.AnswerQueryRequest) -> str:
    """What errors name: the serving config, and the session when there is one."""
    session = f" (session {request.session})" if request.session else ""
    return request.serving_config + session


class DiscoveryEngineAnswerQueryArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, AnswerOptions, total=False
):
    """The connection's, the target's and the answer options' keyword arguments in one set."""


class DiscoveryEngineAnswerQuery:
    """Discovery Engine ``answerQuery`` on an engine (the usual target) or a data store
    (exactly one of ``engine_id`` and ``data_store_id``), with ``AnswerSpec``'s fields as
    options, checked here (a session of another engine or data store: ``ConfigurationError``).
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
        config, endpoint = self.target.serving_config_path, self.connection.endpoint
        return f"{type(self).__name__}(serving_config={config!r}, endpoint={endpoint!r})"

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

    def _call(self, service: Any, call: str, resource: str, request: Any) -> Any:
        with translate_errors(_method(call), resource):
            method = getattr(self.connection.client(service), call)
            response = method(request=request, **self.connection.call_options.call_kwargs())
            return list(response) if call == "list_sessions" else response  # every page

    async def _acall(self, service: Any, call: str, resource: str, request: Any) -> Any:
        with translate_errors(_method(call), resource):
            method = getattr(self.connection.async_client(service), call)
            kwargs = self.connection.call_options.async_call_kwargs()
            response = await method(request=request, **kwargs)
            return [s async for s in response] if call == "list_sessions" else response

    def answer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """A grounded answer to ``query`` (in ``session`` if given, else in ``spec.session``)."""
        request = self._request(query, session)
        service = de.ConversationalSearchServiceClient
        return _answer(self._call(service, "answer_query", answer_resource(request), request))

    async def aanswer(self, query: str, *, session: str | None = None) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        request = self._request(query, session)
        service = de.ConversationalSearchServiceAsyncClient
        return _answer(
            await self._acall(service, "answer_query", answer_resource(request), request)
        )

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
            kwargs = self.connection.call_options.call_kwargs()
            stream: Any = client.stream_answer_query(request=request, **kwargs)
            try:
                for response in stream:
                    if delta := assembler.add(type(response).pb(response)):
                        yield delta
            finally:
                stream.cancel()  # a no-op once the stream has ended (gRPC's call.cancel)
        yield assembler.answer()

    async def _astream(self, request: Any) -> AsyncIterator[str | GroundedAnswer]:
        assembler = AnswerAssembler()
        with translate_errors("StreamAnswerQuery", answer_resource(request)):
            client = self.connection.async_client(de.ConversationalSearchServiceAsyncClient)
            kwargs = self.connection.call_options.async_call_kwargs()
            stream: Any = await client.stream_answer_query(request=request, **kwargs)
            try:
                async for response in stream:
                    if delta := assembler.add(type(response).pb(response)):
                        yield delta
            finally:
                stream.cancel()
        yield assembler.answer()

    # -- sessions (SessionService) -------------------------------------------------------------

    def _session_request(self, call: str, name: str | None, fields: dict[str, Any]) -> Any:
        # What errors name (the session, or else the parent), and the request.
        if name == "-":
            raise InputError(
                "session '-' names no session (it asks AnswerQuery to start one): give the id or "
                "resource name of an existing session",
                field="session",
            )
        if name is None:
            resource = fields["parent"] = self.target.parent_path
        else:
            resource = fields["name"] = self.target.session_path(name)
        return resource, getattr(de, f"{_method(call)}Request")(**fields)

    def _session_call(self, call: str, name: str | None = None, **fields: Any) -> Any:
        return self._call(de.SessionServiceClient, call, *self._session_request(call, name, fields))

    async def _asession_call(self, call: str, name: str | None = None, **fields: Any) -> Any:
        request = self._session_request(call, name, fields)
        return await self._acall(de.SessionServiceAsyncClient, call, *request)

    def create_session(self, *, user_pseudo_id: str = "", display_name: str = "") -> Session:
        """A new, empty session (AnswerQuery with ``session="-"`` also starts one)."""
        session = _new_session(user_pseudo_id, display_name)
        return _session(self._session_call("create_session", session=session))

    async def acreate_session(self, *, user_pseudo_id: str = "", display_name: str = "") -> Session:
        """Async ``create_session``, on Google's async client."""
        session = _new_session(user_pseudo_id, display_name)
        return _session(await self._asession_call("create_session", session=session))

    def get_session(self, session: str, *, include_answer_details: bool = False) -> Session:
        """The session named ``session``, with its turns (and their answers with
        ``include_answer_details``)."""
        details = include_answer_details
        return _session(self._session_call("get_session", session, include_answer_details=details))

    async def aget_session(self, session: str, *, include_answer_details: bool = False) -> Session:
        """Async ``get_session``, on Google's async client."""
        details = include_answer_details
        response = await self._asession_call("get_session", session, include_answer_details=details)
        return _session(response)

    def list_sessions(self, *, filter: str = "", order_by: str = "") -> tuple[Session, ...]:
        """Every session (all pages); ``filter`` and ``order_by`` as ``ListSessionsRequest``
        documents them (e.g. ``'user_pseudo_id = "visitor-1"'``, ``"update_time desc"``)."""
        sessions = self._session_call("list_sessions", filter=filter, order_by=order_by)
        return tuple(map(_session, sessions))

    async def alist_sessions(self, *, filter: str = "", order_by: str = "") -> tuple[Session, ...]:
        """Async ``list_sessions``, on Google's async client."""
        sessions = await self._asession_call("list_sessions", filter=filter, order_by=order_by)
        return tuple(map(_session, sessions))

    def delete_session(self, session: str) -> None:
        """Delete the session named ``session`` (``NotFoundError`` when there is none)."""
        self._session_call("delete_session", session)

    async def adelete_session(self, session: str) -> None:
        """Async ``delete_session``, on Google's async client."""
        await self._asession_call("delete_session", session)


def _new_session(user_pseudo_id: str, display_name: str) -> dict[str, str]:
    return {
        "user_pseudo_id": check_text("user_pseudo_id", user_pseudo_id, maximum=MAX_USER_PSEUDO_ID),
        "display_name": check_text("display_name", display_name),
    }


def _method(call: str) -> str:
    """The Google method name of a client method: ``answer_query`` -> ``AnswerQuery``."""
    return call.title().replace("_", "")


def _answer(response: Any) -> GroundedAnswer:
    return discovery_engine_answer(type(response).pb(response))


def _session(response: Any) -> Session:
    return session_from_proto(type(response).pb(response))

"""``google.cloud.discoveryengine.{v}.ConversationalSearchService``: AnswerQuery,
StreamAnswerQuery, GetAnswer (the session RPCs are in ``session.py``).

Sessions (``AnswerQueryRequest.session``: "When session field is not set, the API is in
sessionless mode. We support auto session mode: users can use the wildcard symbol ``-`` as
session ID. A new ID will be automatically generated and assigned"):

- no session: the answer is named ``{parent}/sessions/-/answers/{id}`` and is not kept;
- ``{parent}/sessions/-``: a new session (with the request's ``user_pseudo_id``) whose first
  turn is this query; ``{parent}/sessions/{id}``: an existing one (else ``NOT_FOUND``) gets a
  new turn, and its earlier queries feed the query rephraser (``answer/rephrase.py``). The
  parent must be the serving config's data store or engine. The response's ``session`` is the
  session with its turns ("only available when session field is set and valid"); the answer,
  named ``{session}/answers/{id}``, can be read back with ``GetAnswer``.

Whichever form the serving config and the session give it, ``{parent}`` in a name the emulator
makes is the data store or engine fully qualified, in its collection (a collection-less data
store's is ``default_collection``). ``Session.name``: "Immutable. Fully qualified name
``projects/{project}/locations/global/collections/{collection}/engines/{engine}/sessions/*``";
``Answer.name``: the same words, the name followed by ``/answers/*`` (a sessionless answer's
too).

Every response has a new ``answer_query_token`` ("A global unique ID used for logging").
``safety_spec`` is accepted and changes nothing: the emulator's answers are sentences of the
corpus, never rated or blocked (no ``safety_ratings``). ``user_pseudo_id`` is at most 128
characters (``INVALID_ARGUMENT`` otherwise, as documented).

``StreamAnswerQuery`` answers as ``AnswerQuery`` does, with the limitations Google's *Stream
answers* page lists: "The number of rephrase steps is one. You can't disable rephrasing, nor
can you change the maximum number of steps" (the request's ``query_rephraser_spec`` is not
applied: one step, always); "You can't get grounding scores for streaming answers, nor can you
choose to return only well-grounded answers" (no ``grounding_score`` or ``grounding_supports``,
and ``grounding_spec.filtering_level`` is not applied). Whether Google refuses those fields or
ignores them, and what it does with a query in another language than English ("Streaming
answer is supported only for English"), the page does not say: the emulator ignores them. The
responses: ``messages/answer.py``, ``discovery_answer_stream``.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.engine import AnswerParams, GeneratedAnswer, generate_answer
from grounding_emulator.answer.sessions import Session, Turn, check_room, new_id
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.wire.messages import (
    ChunkNames,
    discovery_answer_response,
    discovery_answer_stream,
)
from grounding_emulator.wire.messages.session import session_message
from grounding_emulator.wire.names import (
    ServingConfigName,
    SessionName,
    data_store_path,
    parse_answer_name,
    parse_serving_config,
    parse_session_name,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc
from grounding_emulator.wire.servicers.request_specs import (
    boosts,
    check_query,
    check_user_pseudo_id,
    data_store_specs,
    search_result_mode,
)

__all__ = ["ConversationalSearchServicer"]

_AnswerQueryRequest = de.AnswerQueryRequest.pb()
_FilteringLevel = _AnswerQueryRequest.GroundingSpec.FilteringLevel
_ClassificationType = _AnswerQueryRequest.QueryUnderstandingSpec.QueryClassificationSpec.Type
_Answer = de.Answer.pb()
_SEARCH_PARAMS = "search_spec.search_params"


def _filtering_level(value: int) -> str:
    """ "LOW"/"HIGH" for a ``GroundingSpec.FilteringLevel``, "" when unspecified."""
    name = _FilteringLevel.Name(value)
    return "" if name == "FILTERING_LEVEL_UNSPECIFIED" else name.removeprefix("FILTERING_LEVEL_")


def _classification_types(values: Any) -> tuple[str, ...]:
    """The query classes asked about (``QueryClassificationSpec.Type`` names, without
    ``TYPE_UNSPECIFIED``), in request order."""
    names = (_ClassificationType.Name(v) for v in values)
    return tuple(dict.fromkeys(n for n in names if n != "TYPE_UNSPECIFIED"))


def _params(
    request: Any,
    data_store: DataStore,
    history: tuple[str, ...],
    *,
    streaming: bool,
    rerank_top: int,
) -> AnswerParams:
    search_params = request.search_spec.search_params
    generation = request.answer_generation_spec
    understanding = request.query_understanding_spec
    spec_boosts, spec_filters = data_store_specs(
        search_params.data_store_specs, data_store, f"{_SEARCH_PARAMS}.data_store_specs"
    )
    return AnswerParams(
        query=check_query(request.query.text, "query.text"),
        max_return_results=search_params.max_return_results,
        filter=search_params.filter,
        order_by=search_params.order_by,
        boosts=boosts(search_params.boost_spec, f"{_SEARCH_PARAMS}.boost_spec") + spec_boosts,
        data_store_filters=spec_filters,
        mode=search_result_mode(
            search_params.search_result_mode, f"{_SEARCH_PARAMS}.search_result_mode"
        ),
        include_citations=generation.include_citations,
        ignore_adversarial_query=generation.ignore_adversarial_query,
        ignore_non_answer_seeking_query=generation.ignore_non_answer_seeking_query,
        ignore_jail_breaking_query=generation.ignore_jail_breaking_query,
        ignore_low_relevant_content=(
            generation.ignore_low_relevant_content
            if generation.HasField("ignore_low_relevant_content")
            else None
        ),
        # Streaming: no filtering by grounding, one rephrase step (the module docstring).
        filtering_level=(
            "" if streaming else _filtering_level(request.grounding_spec.filtering_level)
        ),
        classification_types=_classification_types(understanding.query_classification_spec.types),
        history=history,
        rephrase=streaming or not understanding.query_rephraser_spec.disable,
        max_rephrase_steps=1
        if streaming
        else understanding.query_rephraser_spec.max_rephrase_steps,
        spell_correction=not understanding.disable_spell_correction,
        related_questions=request.related_questions_spec.enable,
        rerank_top=rerank_top,
    )


class ConversationalSearchServicer(Servicer):
    """``google.cloud.discoveryengine.v1.ConversationalSearchService`` (AnswerQuery,
    StreamAnswerQuery and GetAnswer; ``session.py`` serves its session RPCs)."""

    services = discovery_engine("ConversationalSearchService")

    def _session(self, request: Any, serving_config: ServingConfigName) -> SessionName | None:
        """The request's session (``None`` when sessionless), under the serving config's
        parent."""
        if not request.session:
            return None
        name = parse_session_name(request.session, "session", allow_new=True)
        if name.parent.key != serving_config.parent_key:
            raise InvalidArgument(
                f"session {excerpt(request.session)} is not a session of "
                f"{excerpt(serving_config.parent_path)}, the serving config's "
                f"{'engine' if serving_config.engine else 'data store'}: use "
                f"{serving_config.parent_path}/sessions/-",
                field="session",
            )
        return name

    @rpc("AnswerQuery", de.AnswerQueryRequest.pb())
    def answer_query(self, request: Any) -> Any:
        """``AnswerQuery``: an extractive answer from the serving config's data store, in a
        session when one is named (module docstring)."""
        return self._answer(request, streaming=False)[0]

    @rpc("StreamAnswerQuery", de.AnswerQueryRequest.pb(), streaming=True)
    def stream_answer_query(self, request: Any) -> list[Any]:
        """``StreamAnswerQuery``: the answer sentence by sentence, then the whole answer
        (module docstring; ``discovery_answer_stream``)."""
        final, answer = self._answer(request, streaming=True)
        return discovery_answer_stream(answer, final)

    def _answer(self, request: Any, *, streaming: bool) -> tuple[Any, GeneratedAnswer]:
        """The ``AnswerQueryResponse`` to ``request`` and the answer it was built from."""
        name = parse_serving_config(request.serving_config)
        data_store = self.backend.data_store(name)
        if request.search_spec.HasField("search_result_list"):
            raise InvalidArgument(
                "search_spec.search_result_list is not supported by the emulator: let it search "
                "(search_spec.search_params)",
                field="search_spec.search_result_list",
            )
        check_user_pseudo_id(request.user_pseudo_id)
        session_name = self._session(request, name)
        session: Session | None = None
        if session_name is not None and session_name.session != "-":
            session = self.backend.sessions.get(session_name.key, request.session)
            check_room(session)  # refused before the work: a full session takes no more turns
        history = tuple(t.query for t in session.turns) if session else ()
        answer = generate_answer(
            data_store,
            _params(
                request,
                data_store,
                history,
                streaming=streaming,
                rerank_top=self.backend.rerank_search,
            ),
            self.backend.judge,
        )

        now = _dt.datetime.now(_dt.timezone.utc)
        if session_name is not None and session is None:
            session = self._new_session(session_name, request.user_pseudo_id, now)
        answer_id = new_id()
        answer_name = (
            f"{session.name}/answers/{answer_id}"
            if session is not None
            else f"{name.parent_key}/sessions/-/answers/{answer_id}"
        )
        response = discovery_answer_response(
            answer,
            ChunkNames(data_store_path(name, data_store.id)),
            answer_name=answer_name,
            include_grounding_supports=(
                not streaming and request.grounding_spec.include_grounding_supports
            ),
            now=now,
        )
        response.answer_query_token = new_id()
        if session is not None:
            stored = self.backend.sessions.add_turn(
                session.key,
                session.name,
                Turn(query=request.query.text, answer=answer_name),
                (f"{session.key}/answers/{answer_id}", response.answer.SerializeToString()),
                now,
            )
            response.session.CopyFrom(session_message(stored))
        return response, answer

    def _new_session(self, name: SessionName, user_pseudo_id: str, now: _dt.datetime) -> Session:
        """The session ``.../sessions/-`` asks for, with a new id, named in its collection."""
        session_id = new_id()
        return self.backend.sessions.create(
            name=f"{name.parent.key}/sessions/{session_id}",
            key=f"{name.parent.key}/sessions/{session_id}",
            parent=name.parent.key,
            now=now,
            fields={"user_pseudo_id": user_pseudo_id},
        )

    @rpc("GetAnswer", de.GetAnswerRequest.pb())
    def get_answer(self, request: Any) -> Any:
        """``GetAnswer``: an answer of a session's turn (sessionless answers are not kept)."""
        name = parse_answer_name(request.name)
        return _Answer.FromString(self.backend.sessions.answer(name.key, request.name))

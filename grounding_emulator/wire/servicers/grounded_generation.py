"""``google.cloud.discoveryengine.{v}.GroundedGenerationService``: CheckGrounding,
GenerateGroundedContent and StreamGenerateGroundedContent.

Grounded generation (reference pages: *Generate grounded answers with RAG*,
generative-ai-app-builder/docs/grounded-gen; ``GenerateGroundedContentRequest`` v1) answers the
last user turn of ``contents`` from the grounding sources (``answer/grounded.py``): inline facts
(``inline_source.grounding_facts``; ``FactChunk.source`` is the fact's index among the request's
inline facts, counted over every inline source in order; its ``source_metadata`` the source's
``attributes`` overlaid with the fact's) and Vertex AI Search (``search_source``: the emulator's
own search of the serving config's data store or engine, ``max_result_count`` chunks, default
and at most 10, with its ``filter``; ``FactChunk.source`` the chunk's resource name, its
``source_metadata`` the document's ``title``, ``uri`` and name). ``system_instruction``,
``generation_spec``'s sampling values and ``safe_search`` are accepted and change nothing: the
answer is sentences of the chunks, the same for any model.

What the emulator cannot stand in for is ``UNIMPLEMENTED``, saying so: Grounding with Google
Search (``google_search_source``, with or without ``dynamic_retrieval_config``), enterprise web
retrieval, a request with no grounding source (a model answering from its own knowledge) and a
tuned model (a ``model_id`` that is a resource name, with ``/``). Limits, ``INVALID_ARGUMENT``
naming the field: ``contents`` not empty, each role ``user``, ``model`` or unset ("Must be
either user or model"), the last turn the user's and holding text; at most 200 inline facts
(CheckGrounding's count: Google gives none here) of at most 10,000 characters (``FactChunk``:
"Can be at most 10K characters long"); ``max_result_count`` in [0, 10].

``StreamGenerateGroundedContent`` is a bidirectional stream: each request is answered in turn,
sentence by sentence, the last response of each answer with its grounding
(``messages/generation.py``). It has no REST binding (Google's neither).
"""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.grounded import GroundedAnswer, GroundingChunk, grounded_answer
from grounding_emulator.answer.rephrase import rephrase
from grounding_emulator.answer.sources import source_hits
from grounding_emulator.errors import InvalidArgument, Unimplemented, excerpt
from grounding_emulator.grounding.check import run_check
from grounding_emulator.grounding.judge import Fact
from grounding_emulator.limits import MAX_FACT_CHARS, MAX_FACTS, MAX_SEARCH_SOURCE_RESULTS
from grounding_emulator.search.engine import SearchParams, search
from grounding_emulator.wire.labels import check_labels
from grounding_emulator.wire.messages import ChunkNames, check_grounding_response
from grounding_emulator.wire.messages.generation import (
    grounded_content_response,
    grounded_content_stream,
)
from grounding_emulator.wire.names import (
    data_store_path,
    parse_grounding_config,
    parse_location,
    parse_serving_config,
)
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc

__all__ = ["GroundedGenerationServicer"]

_SOURCES = "grounding_spec.grounding_sources"
_SUPPORTED = (
    "the emulator grounds on inline_source.grounding_facts and on search_source (a serving "
    "config of a served data store or engine)"
)
_ROLES = ("", "user", "model")


def _conversation(contents: Any) -> tuple[str, list[str]]:
    """The question (the last user turn's text) and the earlier user turns, oldest first."""
    if not contents:
        raise InvalidArgument(
            "contents is empty: give the conversation, ending with the user's question",
            field="contents",
        )
    turns: list[str] = []
    for number, content in enumerate(contents):
        if content.role not in _ROLES:
            field = f"contents[{number}].role"
            raise InvalidArgument(
                f"{field} is {excerpt(content.role)}: it must be user or model (or unset)",
                field=field,
            )
        turns.append(" ".join(p.text for p in content.parts if p.text.strip()))
    last = len(contents) - 1
    if contents[last].role == "model":
        field = f"contents[{last}].role"
        raise InvalidArgument(
            f"{field} is model: contents must end with the user's turn, the question to answer",
            field=field,
        )
    if not turns[last].strip():
        field = f"contents[{last}].parts"
        raise InvalidArgument(
            f"{field} holds no text: the last user turn is the question to answer", field=field
        )
    history = [t for c, t in zip(contents[:last], turns, strict=False) if c.role != "model"]
    return turns[last], [t for t in history if t.strip()]


def _check_model(spec: Any) -> None:
    if "/" in spec.model_id:
        raise Unimplemented(
            f"generation_spec.model_id {excerpt(spec.model_id)} names a tuned model: the "
            "emulator has no models; leave model_id unset or name a Gemini model (the answer "
            "is the same extractive one for every model)"
        )


class GroundedGenerationServicer(Servicer):
    """``google.cloud.discoveryengine.v1.GroundedGenerationService``: the backend's judge gives
    the verdicts (see ``grounding/judge.py``); grounded generation as the module docstring
    says."""

    services = discovery_engine("GroundedGenerationService")

    @rpc("CheckGrounding", de.CheckGroundingRequest.pb())
    def check_grounding(self, request: Any) -> Any:
        """``CheckGrounding``: the judge's verdict on each claim of the answer candidate;
        ``user_labels`` are checked as their field doc says (``wire/labels.py``)."""
        parse_grounding_config(request.grounding_config)
        check_labels(request.user_labels)
        facts = [Fact(f.fact_text, dict(f.attributes)) for f in request.facts]
        spec = request.grounding_spec
        threshold = spec.citation_threshold if spec.HasField("citation_threshold") else None
        checked = run_check(request.answer_candidate, facts, self.backend.judge, threshold)
        return check_grounding_response(
            request.answer_candidate,
            facts,
            checked,
            claim_scores=spec.HasField("enable_claim_level_score")
            and spec.enable_claim_level_score,
        )

    @rpc("GenerateGroundedContent", de.GenerateGroundedContentRequest.pb())
    def generate_grounded_content(self, request: Any) -> Any:
        """``GenerateGroundedContent`` (reference: *Generate grounded answers with RAG*; module
        docstring): one candidate, its grounding score and metadata."""
        return grounded_content_response(self._answer(request))

    @rpc("StreamGenerateGroundedContent", de.GenerateGroundedContentRequest.pb(), bidi=True)
    def stream_generate_grounded_content(self, request: Any) -> list[Any]:
        """``StreamGenerateGroundedContent`` (reference: *Generate grounded answers with RAG*,
        "Stream grounded answers"): one request's answer in parts, the grounding with the
        last (module docstring)."""
        return grounded_content_stream(self._answer(request))

    def _answer(self, request: Any) -> GroundedAnswer:
        parse_location(request.location)
        check_labels(request.user_labels)
        _check_model(request.generation_spec)
        question, history = _conversation(request.contents)
        chunks = self._chunks(request.grounding_spec.grounding_sources, question, history)
        return grounded_answer(question, history, chunks, self.backend.judge)

    def _chunks(self, sources: Any, question: str, history: list[str]) -> list[GroundingChunk]:
        """The grounding chunks of every source, in request order (refusing what the emulator
        does not serve, and the limits, first)."""
        if not sources:
            raise Unimplemented(
                f"{_SOURCES} is empty: a model answering from its own knowledge is not served "
                f"by the emulator; {_SUPPORTED}"
            )
        facts = 0
        for number, source in enumerate(sources):
            kind = source.WhichOneof("source")
            field = f"{_SOURCES}[{number}]"
            if kind == "google_search_source":
                raise Unimplemented(
                    f"{field}.google_search_source: Grounding with Google Search (and its "
                    f"dynamic_retrieval_config) is not served by the emulator, which has no web "
                    f"index; {_SUPPORTED}"
                )
            if kind == "enterprise_web_retrieval_source":
                raise Unimplemented(
                    f"{field}.enterprise_web_retrieval_source: enterprise web retrieval is not "
                    f"served by the emulator, which has no web index; {_SUPPORTED}"
                )
            if kind is None:
                raise InvalidArgument(
                    f"{field} sets no source: set inline_source or search_source", field=field
                )
            if kind == "inline_source":
                for index, fact in enumerate(source.inline_source.grounding_facts):
                    text_field = f"{field}.inline_source.grounding_facts[{index}].fact_text"
                    if len(fact.fact_text) > MAX_FACT_CHARS:
                        raise InvalidArgument(
                            f"{text_field} has {len(fact.fact_text)} characters; at most "
                            f"{MAX_FACT_CHARS} are allowed",
                            field=text_field,
                        )
                facts += len(source.inline_source.grounding_facts)
                if facts > MAX_FACTS:
                    facts_field = f"{field}.inline_source.grounding_facts"
                    raise InvalidArgument(
                        f"{facts_field}: the request has {facts} grounding facts or more; at "
                        f"most {MAX_FACTS} are allowed",
                        field=facts_field,
                    )
        searched = rephrase(question, history, 1) if history else question
        chunks: list[GroundingChunk] = []
        fact_number = 0
        for number, source in enumerate(sources):
            if source.WhichOneof("source") == "inline_source":
                inline = source.inline_source
                for fact in inline.grounding_facts:
                    attributes = {**inline.attributes, **fact.attributes}
                    chunks.append(
                        GroundingChunk(
                            fact.fact_text, str(fact_number), "INLINE_CONTENT", attributes
                        )
                    )
                    fact_number += 1
            else:
                chunks.extend(self._search(source.search_source, searched, f"{_SOURCES}[{number}]"))
        return chunks

    def _search(self, source: Any, query: str, field: str) -> list[GroundingChunk]:
        """The chunks the emulator's search finds for ``query`` in ``source``'s serving
        config."""
        count = source.max_result_count
        if not 0 <= count <= MAX_SEARCH_SOURCE_RESULTS:
            count_field = f"{field}.search_source.max_result_count"
            raise InvalidArgument(
                f"{count_field} is {count}; it must be between 0 and "
                f"{MAX_SEARCH_SOURCE_RESULTS} (0: the default, {MAX_SEARCH_SOURCE_RESULTS})",
                field=count_field,
            )
        name = parse_serving_config(source.serving_config, f"{field}.search_source.serving_config")
        store = self.backend.data_store(name)
        page = search(
            store,
            SearchParams(
                query=query,
                page_size=count or MAX_SEARCH_SOURCE_RESULTS,
                filter=source.filter,
                filter_field=f"{field}.search_source.filter",
                mode="chunks",
                rerank_top=self.backend.rerank_search,
            ),
        )
        names = ChunkNames(data_store_path(name, store.id))
        return [
            GroundingChunk(
                hit.chunk.content,
                names.chunk(hit.document, hit.chunk),
                "VERTEX_AI_SEARCH",
                {
                    "title": hit.document.title,
                    "uri": hit.document.uri,
                    "document": names.document(hit.document),
                },
            )
            for hit in source_hits(store, page.hits)[: count or MAX_SEARCH_SOURCE_RESULTS]
        ]

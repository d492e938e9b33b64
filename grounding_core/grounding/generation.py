"""``DiscoveryEngineGroundedGeneration``: Discovery Engine's grounded generation
(``GenerateGroundedContent``, and ``StreamGenerateGroundedContent`` as it streams).

A conversation (``contents``: a question, or ``(role, text)`` turns, ``user`` and ``model``,
ending with the user's) is answered from grounding sources: inline facts (``GroundingSource``s,
the caller's texts and metadata) and/or Vertex AI Search (a data store's or engine's serving
config, named at construction). The answer is a ``GroundedGeneration``: the answer's claims
(each a ``grounding_support``'s ``claim_text``, with its string span, ``answer[start:end]`` in
any script, its UTF-8 byte span and its ``support_score``; the text no support covers is an
unsupported claim, so a partly supported answer does not pass), the ``grounding_score``, and the
supporting sources as ``GroundingSource``s (the adapters make them documents and nodes), in the
project's one metadata schema (``GroundingReport.metadata``).

Grounded generation does no tool calling (function calling): it answers from its sources.

>>> generating = DiscoveryEngineGroundedGeneration(
...     DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123"),
... )
>>> generating.location
'projects/p/locations/global'
>>> try:
...     generating.generate("Where do rockets launch from?", sources=[])
... except InputError as error:
...     error.field
'sources'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import check_count, check_request_size, check_wire_text
from grounding_core._clients import DiscoveryEngineConnection, DiscoveryEngineConnectionArgs
from grounding_core._errors import InputError, translate_errors
from grounding_core._offsets import Utf8Offsets
from grounding_core._records import CitedChunk, Claim, GroundingResult, GroundingSource
from grounding_core._settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG
from grounding_core.citations import CitationSpan, report_citations
from grounding_core.grounding.check import FactList, build_facts
from grounding_core.grounding.report import GroundingReport

__all__ = [
    "MAX_SEARCH_SOURCE_RESULTS",
    "ContentRole",
    "DiscoveryEngineGroundedGeneration",
    "DiscoveryEngineGroundedGenerationArgs",
    "GroundedGeneration",
    "contents_from_turns",
]

MAX_SEARCH_SOURCE_RESULTS = 10
"""``SearchSource.max_result_count``: "The maximumm allowed value is 10" (0: the default)."""

ContentRole = Literal["user", "model"]
_ROLES = ("user", "model")
_SOURCES = "sources"


def contents_from_turns(contents: str | Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``contents`` as ``(role, text)`` turns (a string: one user turn), checked: not empty,
    each role ``user`` or ``model``, the last turn the user's and not blank."""
    turns = [("user", contents)] if isinstance(contents, str) else list(contents)
    if not turns:
        raise InputError(
            "contents is empty: give the conversation, ending with the user's question",
            field="contents",
        )
    for number, turn in enumerate(turns):
        if not (isinstance(turn, tuple) and len(turn) == 2):
            raise InputError(
                f"contents[{number}] must be a (role, text) pair, got {type(turn).__name__}",
                field=f"contents[{number}]",
            )
        role, text = turn
        if role not in _ROLES:
            raise InputError(
                f"contents[{number}].role is {role!r}: it must be 'user' or 'model'",
                field=f"contents[{number}].role",
            )
        check_wire_text(f"contents[{number}].parts", text)
    last = len(turns) - 1
    if turns[last][0] != "user":
        raise InputError(
            f"contents[{last}].role is model: the conversation must end with the user's turn",
            field=f"contents[{last}].role",
        )
    if not turns[last][1].strip():
        raise InputError(
            f"contents[{last}] is empty: the last user turn is the question to answer",
            field=f"contents[{last}].parts",
        )
    return turns


@dataclass(frozen=True, slots=True)
class GroundedGeneration:
    """A grounded answer of ``GenerateGroundedContent`` in the project's terms: ``report``
    (claims with string and byte spans and ``support_score``s, citations of the sources,
    ``support_score`` the candidate's ``grounding_score``) and ``grounding_score``.

    ``sources`` are the inline sources given (all of them, in order) followed by the search
    chunks the answer cites, each once; ``report.source_ids`` name them (the ids given for
    the inline sources, their positions otherwise; a chunk's resource name)."""

    report: GroundingReport[GroundingSource]
    grounding_score: float | None = None

    @property
    def answer(self) -> str:
        """The answer's text (the candidate's parts joined)."""
        return self.report.result.answer if self.report.result else ""

    @property
    def sources(self) -> tuple[GroundingSource, ...]:
        """The inline sources and the cited search chunks (see the class docstring)."""
        return self.report.grounding_sources

    @property
    def claims(self) -> tuple[Claim, ...]:
        """The claims in answer order: each ``grounding_support`` (supported, its
        ``support_score`` as ``score``) and the text between them no support covers
        (unsupported, no score)."""
        return self.report.result.claims if self.report.result else ()

    def citations(self) -> tuple[CitationSpan, ...]:
        """One span per claim and cited source (``report_citations``)."""
        return report_citations(self.report)

    def metadata(self) -> dict[str, Any]:
        """The project's grounding metadata (``GroundingReport.metadata``) and
        ``grounding_score``."""
        return {**self.report.metadata(), "grounding_score": self.grounding_score}


def _chunk_source(chunk: Any) -> GroundingSource:
    metadata: dict[str, Any] = dict(chunk.source_metadata)
    metadata.update(source=chunk.uri or chunk.source, uri=chunk.uri, title=chunk.title)
    metadata["chunk"] = chunk.source
    if chunk.domain:
        metadata["domain"] = chunk.domain
    return GroundingSource(chunk.chunk_text, metadata)


_EMPTY = de.GenerateGroundedContentResponse.Candidate.pb()()


def grounded_generation(
    candidate: Any,
    text: str,
    sources: Sequence[GroundingSource],
    facts: FactList,
    source_ids: Sequence[str],
) -> GroundedGeneration:
    """A ``GenerateGroundedContentResponse.Candidate`` (raw pb; ``None``: no candidate) whose
    answer is ``text`` as a record; ``facts`` maps an inline fact (``source`` its index) back to
    its source."""
    candidate = _EMPTY if candidate is None else candidate
    metadata = candidate.grounding_metadata
    all_sources = list(sources)
    ids = [source_ids[i] if i < len(source_ids) else "" for i in range(len(sources))]
    chunk_positions: dict[str, int] = {}
    cited: list[CitedChunk] = []
    for position, chunk in enumerate(metadata.support_chunks):
        fact = int(chunk.source) if chunk.source.isdigit() else None
        source_index = facts.source_index(fact)
        if source_index is None:  # a search chunk: a source of its own, once
            key = chunk.source or chunk.chunk_text
            if key not in chunk_positions:
                chunk_positions[key] = len(all_sources)
                all_sources.append(_chunk_source(chunk))
                ids.append(chunk.source)
            source_index = chunk_positions[key]
        attributes = {k: str(v) for k, v in chunk.source_metadata.items()}
        cited.append(
            CitedChunk(
                chunk.chunk_text,
                source_index,
                position,
                attributes,
                chunk.uri,
                chunk.title,
                chunk.domain,
            )
        )
    offsets = Utf8Offsets(text)
    claims: list[Claim] = []
    cursor = 0
    for number, support in enumerate(metadata.grounding_support):
        claim_text = support.claim_text
        start = text.find(claim_text, cursor)
        if start < 0:
            start = text.find(claim_text)
        indices = tuple(support.support_chunk_indices)
        for k, index in enumerate(indices):
            if not 0 <= index < len(cited):
                raise InputError(
                    f"grounding_support[{number}].support_chunk_indices[{k}] is {index}, but "
                    f"there are {len(cited)} support_chunks",
                    field=f"grounding_support[{number}].support_chunk_indices[{k}]",
                    limit=len(cited) - 1,
                )
        score = support.support_score if support.HasField("support_score") else None
        citations = tuple(cited[i] for i in indices)
        if start < 0 or not claim_text:  # not in the answer: kept, without a span
            claims.append(Claim(claim_text, None, None, None, None, indices, citations, score))
            continue
        end = start + len(claim_text)
        cursor = end
        byte_start, byte_end = offsets.to_byte(start), offsets.to_byte(end)
        claims.append(
            Claim(claim_text, start, end, byte_start, byte_end, indices, citations, score)
        )
    claims = _with_uncovered(text, offsets, claims)
    grounding_score = candidate.grounding_score if candidate.HasField("grounding_score") else None
    result = GroundingResult(text, grounding_score, tuple(claims), tuple(cited))
    report = GroundingReport(
        result,
        tuple(all_sources),
        tuple(all_sources),
        source_ids=tuple(ids),
    )
    return GroundedGeneration(report, grounding_score)


def _with_uncovered(text: str, offsets: Utf8Offsets, claims: list[Claim]) -> list[Claim]:
    """``claims`` and, in answer order, the text no support covers (each stretch between
    them, whitespace trimmed) as unsupported claims: Google lists supported claims only, and
    an answer part of which is unsupported must not pass for grounded."""
    spanned = sorted((c for c in claims if c.start is not None), key=lambda c: c.start or 0)
    out: list[Claim] = []
    position = 0
    for claim in [*spanned, None]:
        stop = len(text) if claim is None else claim.start or 0
        gap = text[position:stop]
        if gap.strip():
            start = position + len(gap) - len(gap.lstrip())
            end = stop - (len(gap) - len(gap.rstrip()))
            byte_start, byte_end = offsets.to_byte(start), offsets.to_byte(end)
            out.append(Claim(text[start:end], start, end, byte_start, byte_end))
        if claim is not None:
            out.append(claim)
            position = max(position, claim.end or 0)
    return out + [c for c in claims if c.start is None]


class _Assembler:
    """The responses of one streamed answer: the text as it arrives, the grounding with the
    last."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.candidate: Any = None

    def add(self, response: Any) -> str:
        candidate, delta = _candidate_text(response)
        self.parts.append(delta)
        if candidate is not None and (
            candidate.HasField("grounding_metadata") or candidate.HasField("grounding_score")
        ):
            self.candidate = candidate
        return delta


def _candidate_text(response: Any) -> tuple[Any, str]:
    if not response.candidates:
        return None, ""
    candidate = response.candidates[0]
    return candidate, "".join(part.text for part in candidate.content.parts)


class GroundedGenerationOptions(TypedDict, total=False):
    """The keyword arguments of ``DiscoveryEngineGroundedGeneration`` after the connection."""

    data_store_id: str | None
    engine_id: str | None
    collection: str | None
    serving_config_id: str
    max_result_count: int | None
    filter: str
    model_id: str
    temperature: float | None
    language_code: str


class DiscoveryEngineGroundedGenerationArgs(
    DiscoveryEngineConnectionArgs, GroundedGenerationOptions, total=False
):
    """The connection's and the component's keyword arguments in one set, as the framework
    components take them."""


class DiscoveryEngineGroundedGeneration:
    """Discovery Engine's grounded generation in this connection's project and location.

    ``data_store_id`` or ``engine_id`` (optional) adds a Vertex AI Search source: that serving
    config, ``max_result_count`` chunks (1..10; ``None``: Google's default, 10) matching
    ``filter``. ``model_id`` names the Gemini model (empty: Google's default); ``temperature``
    etc. are not sent unless given. The inline sources are given per call.
    """

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        max_result_count: int | None = None,
        filter: str = "",
        model_id: str = "",
        temperature: float | None = None,
        language_code: str = "",
    ) -> None:
        self.connection = connection
        self.location = f"projects/{connection.project}/locations/{connection.location}"
        self.serving_config: str | None = None
        if data_store_id is not None or engine_id is not None:
            target = connection.target(
                data_store_id=data_store_id,
                engine_id=engine_id,
                collection=collection,
                serving_config_id=serving_config_id,
            )
            self.serving_config = target.serving_config_path
        if max_result_count is not None:
            check_count(
                "max_result_count", max_result_count, minimum=1, maximum=MAX_SEARCH_SOURCE_RESULTS
            )
        if temperature is not None and not 0.0 <= temperature <= 2.0:
            raise InputError(
                f"temperature is {temperature!r}; it must be between 0 and 2",
                field="temperature",
                limit=2.0,
            )
        self.max_result_count = max_result_count
        self.filter = check_wire_text("filter", filter)
        self.model_id = check_wire_text("model_id", model_id)
        self.temperature = temperature
        self.language_code = check_wire_text("language_code", language_code)

    def __repr__(self) -> str:
        where = self.serving_config or self.location
        return f"{type(self).__name__}({where!r}, endpoint={self.connection.endpoint!r})"

    # -- the request, shared by every call -----------------------------------------------------

    def request(
        self,
        contents: str | Sequence[tuple[str, str]],
        *,
        sources: Sequence[GroundingSource] = (),
        system_instruction: str | None = None,
    ) -> tuple[de.GenerateGroundedContentRequest, FactList]:
        """The ``GenerateGroundedContentRequest`` (and the facts sent, for the answer's
        citations); bad input is refused here, naming the field and the limit."""
        turns = contents_from_turns(contents)
        facts = build_facts(sources, api="GenerateGroundedContent", field=_SOURCES)
        if not facts.texts and self.serving_config is None:
            raise InputError(
                "no grounding source: give sources (documents with text) or a data_store_id / "
                "engine_id to search; grounded generation answers from its sources only",
                field=_SOURCES,
            )
        grounding_sources: list[dict[str, Any]] = []
        if facts.texts:
            grounding_sources.append(
                {
                    "inline_source": {
                        "grounding_facts": [
                            {"fact_text": text, "attributes": attributes}
                            for text, attributes in zip(facts.texts, facts.attributes, strict=True)
                        ]
                    }
                }
            )
        if self.serving_config is not None:
            grounding_sources.append(
                {
                    "search_source": {
                        "serving_config": self.serving_config,
                        "max_result_count": self.max_result_count or 0,
                        "filter": self.filter,
                    }
                }
            )
        generation_spec: dict[str, Any] = {
            "model_id": self.model_id,
            "language_code": self.language_code,
        }
        if self.temperature is not None:
            generation_spec["temperature"] = self.temperature
        fields: dict[str, Any] = {}
        if system_instruction:
            text = check_wire_text("system_instruction", system_instruction)
            fields["system_instruction"] = {"parts": [{"text": text}]}
        request = de.GenerateGroundedContentRequest(
            location=self.location,
            contents=[{"role": role, "parts": [{"text": text}]} for role, text in turns],
            grounding_spec={"grounding_sources": grounding_sources},
            generation_spec=generation_spec,
            **fields,
        )
        check_request_size("GenerateGroundedContent", de.GenerateGroundedContentRequest.pb(request))
        return request, facts

    def _resource(self) -> str:
        return self.serving_config or self.location

    # -- the calls -----------------------------------------------------------------------------

    def generate(
        self,
        contents: str | Sequence[tuple[str, str]],
        *,
        sources: Sequence[GroundingSource] = (),
        system_instruction: str | None = None,
        source_ids: Sequence[str] = (),
    ) -> GroundedGeneration:
        """The grounded answer to the conversation's last user turn, from ``sources`` (inline
        facts; ``source_ids`` name them in the metadata) and the search source if any."""
        request, facts = self.request(
            contents, sources=sources, system_instruction=system_instruction
        )
        with translate_errors("GenerateGroundedContent", self._resource()):
            client = self.connection.client(de.GroundedGenerationServiceClient)
            kwargs = self.connection.call_options.call_kwargs()
            response = client.generate_grounded_content(request=request, **kwargs)
        candidate, text = _candidate_text(type(response).pb(response))
        return grounded_generation(candidate, text, sources, facts, source_ids)

    async def agenerate(
        self,
        contents: str | Sequence[tuple[str, str]],
        *,
        sources: Sequence[GroundingSource] = (),
        system_instruction: str | None = None,
        source_ids: Sequence[str] = (),
    ) -> GroundedGeneration:
        """Async ``generate``, on Google's async client."""
        request, facts = self.request(
            contents, sources=sources, system_instruction=system_instruction
        )
        with translate_errors("GenerateGroundedContent", self._resource()):
            client = self.connection.async_client(de.GroundedGenerationServiceAsyncClient)
            kwargs = self.connection.call_options.async_call_kwargs()
            response = await client.generate_grounded_content(request=request, **kwargs)
        candidate, text = _candidate_text(type(response).pb(response))
        return grounded_generation(candidate, text, sources, facts, source_ids)

    def stream(
        self,
        contents: str | Sequence[tuple[str, str]],
        *,
        sources: Sequence[GroundingSource] = (),
        system_instruction: str | None = None,
        source_ids: Sequence[str] = (),
    ) -> Iterator[str | GroundedGeneration]:
        """``generate`` as StreamGenerateGroundedContent streams it: new text (``str``) as it
        arrives, then the ``GroundedGeneration``. Bad input is refused here, before any call;
        closing the iterator early cancels the call."""
        request, facts = self.request(
            contents, sources=sources, system_instruction=system_instruction
        )
        return self._stream(request, tuple(sources), facts, tuple(source_ids))

    def astream(
        self,
        contents: str | Sequence[tuple[str, str]],
        *,
        sources: Sequence[GroundingSource] = (),
        system_instruction: str | None = None,
        source_ids: Sequence[str] = (),
    ) -> AsyncIterator[str | GroundedGeneration]:
        """Async ``stream``, on Google's async client."""
        request, facts = self.request(
            contents, sources=sources, system_instruction=system_instruction
        )
        return self._astream(request, tuple(sources), facts, tuple(source_ids))

    def _stream(
        self,
        request: Any,
        sources: Sequence[GroundingSource],
        facts: FactList,
        source_ids: Sequence[str],
    ) -> Iterator[str | GroundedGeneration]:
        assembler = _Assembler()
        with translate_errors("StreamGenerateGroundedContent", self._resource()):
            client = self.connection.client(de.GroundedGenerationServiceClient)
            options = self.connection.call_options

            def start() -> Any:
                # Each attempt sends the request again: the attempt that sends a bidirectional
                # stream's requests consumes them, so Google's own retry would send none.
                requests = iter([request])
                return client.stream_generate_grounded_content(
                    requests=requests, retry=None, timeout=options.timeout
                )

            stream: Any = options.retry.to_retry()(start)() if options.retry else start()
            try:
                for response in stream:
                    if delta := assembler.add(type(response).pb(response)):
                        yield delta
            finally:
                stream.cancel()  # a no-op once the stream has ended
        text = "".join(assembler.parts)
        yield grounded_generation(assembler.candidate, text, sources, facts, source_ids)

    async def _astream(
        self,
        request: Any,
        sources: Sequence[GroundingSource],
        facts: FactList,
        source_ids: Sequence[str],
    ) -> AsyncIterator[str | GroundedGeneration]:
        assembler = _Assembler()

        async def requests() -> AsyncIterator[Any]:
            yield request

        with translate_errors("StreamGenerateGroundedContent", self._resource()):
            client = self.connection.async_client(de.GroundedGenerationServiceAsyncClient)
            options = self.connection.call_options

            async def start() -> Any:
                # Each attempt sends the request again (see _stream).
                return await client.stream_generate_grounded_content(
                    requests=requests(), retry=None, timeout=options.timeout
                )

            retry = options.retry.to_async_retry() if options.retry else None
            stream: Any = await (retry(start)() if retry else start())
            try:
                async for response in stream:
                    if delta := assembler.add(type(response).pb(response)):
                        yield delta
            finally:
                stream.cancel()
        text = "".join(assembler.parts)
        yield grounded_generation(assembler.candidate, text, sources, facts, source_ids)

"""Gemini's own grounding metadata as the project's: char-correct claims, sources, citations.

Gemini (google-genai, ChatVertexAI, ChatGoogleGenerativeAI) grounds an answer on Vertex AI
Search, RAG Engine or Google Search and returns ``grounding_metadata``: ``grounding_chunks``
(each a ``web`` page with ``uri``, ``title``, ``domain`` or a ``retrieved_context`` with ``uri``,
``title``, ``text``) and ``grounding_supports`` (a ``segment`` of the answer with
``part_index``, ``start_index``, ``end_index`` and ``text``; ``grounding_chunk_indices``;
``confidence_scores``). The segment's offsets count **UTF-8 bytes** of the part's text; read as
string indices (the known bug) they cut any answer that is not ASCII in the wrong place.

``gemini_grounding`` turns that metadata into a ``GroundingReport`` whose claims are the
supported segments, each with its string span (``answer[start:end]`` is the segment in any
script), its byte span, ``score`` (the highest of its confidence scores) and citations of the
chunks it names; the sources are the chunks, as ``GroundingSource``s (the adapters make them
documents). ``GeminiGrounding.recheck`` checks the answer again with checkGrounding against the
retrieved contexts' texts, which grades every sentence (supports Gemini left out included).

It reads dicts (``response_metadata["grounding_metadata"]``, snake_case as the LangChain
packages give it, or the REST API's camelCase) and google-genai's objects alike, and imports
none of those packages. A malformed metadata raises ``InputError`` naming the field path.

>>> metadata = {
...     "grounding_chunks": [{"web": {"uri": "https://ja.example/tokyo", "title": "東京"}}],
...     "grounding_supports": [
...         {"segment": {"start_index": 0, "end_index": 33}, "grounding_chunk_indices": [0],
...          "confidence_scores": [0.9]},
...     ],
... }
>>> grounding = gemini_grounding("東京は日本の首都です。人口は多い。", metadata)
>>> claim = grounding.report.result.claims[0]
>>> claim.text, (claim.start, claim.end), (claim.byte_start, claim.byte_end), claim.score
('東京は日本の首都です。', (0, 11), (0, 33), 0.9)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from grounding_core._errors import InputError, OffsetError
from grounding_core._offsets import Utf8Offsets
from grounding_core._records import CitedChunk, Claim, GroundingResult, GroundingSource
from grounding_core.citations import CitationSpan, report_citations
from grounding_core.grounding.report import GroundingReport

if TYPE_CHECKING:
    from grounding_core.grounding.check import GroundingCheck

__all__ = [
    "GEMINI_METADATA_KEY",
    "GeminiGrounding",
    "gemini_grounding",
    "genai_response_grounding",
]

GEMINI_METADATA_KEY = "grounding_metadata"
"""Where LangChain's Google chat models put Gemini's metadata in ``response_metadata``."""

_MISSING = object()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _field(value: Any, name: str) -> Any:
    """``value``'s field ``name``: a mapping's key (snake_case or camelCase) or an attribute;
    ``None`` when absent."""
    if isinstance(value, Mapping):
        found = value.get(name, _MISSING)
        return value.get(_camel(name)) if found is _MISSING else found
    return getattr(value, name, None)


def _list(value: Any, path: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise InputError(f"{path} must be a list, got {type(value).__name__}", field=path)
    return list(value)


def _int(value: Any, path: str, default: int | None = None) -> int:
    if value is None and default is not None:
        return default
    if value is None:
        raise InputError(f"{path} is missing: Gemini's segments always have one", field=path)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{path} must be an integer, got {value!r}", field=path)
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


@dataclass(frozen=True, slots=True)
class GeminiGrounding:
    """Gemini's grounding of one answer in the project's terms: ``report`` (claims with string
    and byte spans, ``score`` from the confidence scores, citations of the sources), the
    queries Gemini ran, and whether checkGrounding graded it (``rechecked``)."""

    report: GroundingReport[GroundingSource]
    web_search_queries: tuple[str, ...] = ()
    retrieval_queries: tuple[str, ...] = ()
    rechecked: bool = False

    @property
    def answer(self) -> str:
        """The answer's text (its text parts joined, thoughts left out)."""
        return self.report.result.answer if self.report.result else ""

    @property
    def sources(self) -> tuple[GroundingSource, ...]:
        """One source per grounding chunk, in Gemini's order: a retrieved context's text (a web
        page has none) and metadata ``source``/``uri``, ``title``, ``chunk_type`` (``web`` or
        ``retrieved_context``), ``domain`` or ``document_name`` where given."""
        return self.report.grounding_sources

    def citations(self) -> tuple[CitationSpan, ...]:
        """One span per supported claim and cited chunk (``report_citations``)."""
        return report_citations(self.report)

    def metadata(self) -> dict[str, Any]:
        """The project's grounding metadata (``GroundingReport.metadata``) and Gemini's
        ``web_search_queries``, ``retrieval_queries`` and ``rechecked``."""
        return {
            **self.report.metadata(),
            "web_search_queries": list(self.web_search_queries),
            "retrieval_queries": list(self.retrieval_queries),
            "rechecked": self.rechecked,
        }

    def recheck(self, check: GroundingCheck) -> GeminiGrounding:
        """The answer checked again with checkGrounding (``check``) against the chunks' texts
        (a web chunk has none and is not sent): every sentence becomes a claim, cited or not,
        and the report gets a support score. Raises the check's ``GroundingError``."""
        sources = self.sources
        report = check.check(self.answer, sources, sources, self.report.source_ids)
        return replace(self, report=report, rechecked=True)

    async def arecheck(self, check: GroundingCheck) -> GeminiGrounding:
        """``recheck`` on the async client."""
        sources = self.sources
        report = await check.acheck(self.answer, sources, sources, self.report.source_ids)
        return replace(self, report=report, rechecked=True)


def _chunk(chunk: Any, path: str) -> tuple[GroundingSource, str]:
    for kind in ("retrieved_context", "web"):
        body = _field(chunk, kind)
        if body is not None:
            break
    else:
        raise InputError(
            f"{path} has neither web nor retrieved_context: it names no source", field=path
        )
    uri, title = _text(_field(body, "uri")), _text(_field(body, "title"))
    text = _text(_field(body, "text")) if kind == "retrieved_context" else ""
    metadata: dict[str, Any] = {"source": uri, "uri": uri, "title": title, "chunk_type": kind}
    domain = _text(_field(body, "domain"))
    for key, value in (("domain", domain), ("document_name", _field(body, "document_name"))):
        if isinstance(value, str) and value:
            metadata[key] = value
    return GroundingSource(text, metadata), domain


def gemini_grounding(
    answer: str | Sequence[str], metadata: Any, *, source_ids: Sequence[str] = ()
) -> GeminiGrounding:
    """Gemini's ``metadata`` (a dict or google-genai's ``GroundingMetadata``) of ``answer`` (its
    text, or the texts of the candidate's parts in order, ``""`` for a part without text, which
    ``segment.part_index`` counts) as a ``GeminiGrounding``. Empty segments are left out.

    Raises ``InputError`` naming the field (``grounding_supports[1].segment.end_index``...) for
    a missing segment, a chunk index out of range, an end before its start, an offset past its
    part or inside a character, scores that do not match the indices."""
    parts = [answer] if isinstance(answer, str) else [_text(part) for part in answer]
    text = "".join(parts)
    chunks = _list(_field(metadata, "grounding_chunks"), "grounding_chunks")
    sources: list[GroundingSource] = []
    cited: list[CitedChunk] = []
    for i, chunk in enumerate(chunks):
        source, domain = _chunk(chunk, f"grounding_chunks[{i}]")
        sources.append(source)
        uri, title = source.metadata["uri"], source.metadata["title"]
        cited.append(CitedChunk(source.text, i, i, {}, uri, title, domain))
    mappers = [Utf8Offsets(part) for part in parts]
    char_bases = [sum(len(p) for p in parts[:k]) for k in range(len(parts))]
    byte_bases = [sum(m.byte_length for m in mappers[:k]) for k in range(len(parts))]
    claims: list[Claim] = []
    supports = _list(_field(metadata, "grounding_supports"), "grounding_supports")
    for s, support in enumerate(supports):
        path = f"grounding_supports[{s}]"
        segment = _field(support, "segment")
        if segment is None:
            raise InputError(f"{path}.segment is missing: a support cites a segment", field=path)
        part = _int(_field(segment, "part_index"), f"{path}.segment.part_index", default=0)
        if not 0 <= part < len(parts):
            raise InputError(
                f"{path}.segment.part_index is {part}, but the answer has {len(parts)} part(s)",
                field=f"{path}.segment.part_index",
                limit=len(parts) - 1,
            )
        start = _int(_field(segment, "start_index"), f"{path}.segment.start_index", default=0)
        end = _int(_field(segment, "end_index"), f"{path}.segment.end_index")
        mapper = mappers[part]
        if end < start:
            raise InputError(
                f"{path}.segment.end_index {end} is before its start_index {start}",
                field=f"{path}.segment.end_index",
            )
        for name, offset in (("start_index", start), ("end_index", end)):
            try:
                mapper.to_char(offset)
            except OffsetError as exc:
                raise InputError(
                    f"{path}.segment.{name}: {exc} (Gemini's offsets count UTF-8 bytes)",
                    field=f"{path}.segment.{name}",
                    limit=mapper.byte_length,
                ) from exc
        if start == end:
            continue
        indices = [
            _int(index, f"{path}.grounding_chunk_indices[{k}]")
            for k, index in enumerate(_list(_field(support, "grounding_chunk_indices"), path))
        ]
        for k, index in enumerate(indices):
            if not 0 <= index < len(chunks):
                raise InputError(
                    f"{path}.grounding_chunk_indices[{k}] is {index}, but there are "
                    f"{len(chunks)} grounding_chunks",
                    field=f"{path}.grounding_chunk_indices[{k}]",
                    limit=len(chunks) - 1,
                )
        scores = _list(_field(support, "confidence_scores"), f"{path}.confidence_scores")
        if scores and len(scores) != len(indices):
            raise InputError(
                f"{path}.confidence_scores has {len(scores)} scores for {len(indices)} "
                "grounding_chunk_indices: Google gives one per index",
                field=f"{path}.confidence_scores",
            )
        char_start, char_end = mapper.char_span(start, end)
        first, last = char_bases[part] + char_start, char_bases[part] + char_end
        unique = tuple(dict.fromkeys(indices))
        claims.append(
            Claim(
                text[first:last],
                first,
                last,
                byte_bases[part] + start,
                byte_bases[part] + end,
                unique,
                tuple(cited[i] for i in unique),
                max(float(score) for score in scores) if scores else None,
            )
        )
    result = GroundingResult(text, None, tuple(claims), tuple(cited))
    queries = [
        tuple(_text(q) for q in _list(_field(metadata, name), name))
        for name in ("web_search_queries", "retrieval_queries")
    ]
    report = GroundingReport(result, tuple(sources), tuple(sources), source_ids=tuple(source_ids))
    return GeminiGrounding(report, queries[0], queries[1])


def genai_response_grounding(response: Any, *, candidate: int = 0) -> GeminiGrounding:
    """The grounding of a google-genai ``GenerateContentResponse`` (or its dict form):
    ``candidates[candidate]``'s text parts (thoughts left out) and ``grounding_metadata``."""
    candidates = _list(_field(response, "candidates"), "candidates")
    if not 0 <= candidate < len(candidates):
        raise InputError(
            f"candidates[{candidate}] does not exist: the response has {len(candidates)}",
            field=f"candidates[{candidate}]",
        )
    chosen = candidates[candidate]
    content = _field(chosen, "content")
    parts = _list(_field(content, "parts"), f"candidates[{candidate}].content.parts")
    texts = ["" if _field(p, "thought") else _text(_field(p, "text")) for p in parts]
    return gemini_grounding(texts or [""], _field(chosen, "grounding_metadata") or {})

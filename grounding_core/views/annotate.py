"""A checked answer (or a grounded answer) as annotated text: what every renderer draws.

``annotate_grounding`` and ``annotate_answer`` turn a ``GroundingResult`` or a
``GroundedAnswer`` into an ``AnnotatedText``: its segments (claims or cited segments), each with
a support level and the numbered sources it cites, so that the Markdown, terminal and HTML
views' ``[n]`` agree. Support levels (``support_level``; ``docs/reports.md``):

- ``supported``: the check cited at least one source;
- ``weak``: cited, but its claim-level score (``enable_claim_level_score=True``) is below
  ``weak_below`` (default 0.8): the lowest band of the supported range, which starts at the
  citation threshold (0.6 by default): partly entailed, a paraphrase that adds or drops
  something, or supported only by combining sources;
- ``unsupported``: checked, and no source supports it;
- ``not_checked``: the service did not check it (greetings, connectives, questions).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

if TYPE_CHECKING:
    from grounding_core._records import Claim, GroundedAnswer, GroundingResult, GroundingSource


SupportLevel = Literal["supported", "weak", "unsupported", "not_checked"]
SUPPORT_LEVELS: tuple[SupportLevel, ...] = get_args(SupportLevel)
# How the views name each level.
LEVEL_LABELS = {level: level.replace("_", " ") for level in SUPPORT_LEVELS}

DEFAULT_WEAK_BELOW = 0.8


def plural(count: int, word: str) -> str:
    """``1 source``, ``2 sources``."""
    return f"{count} {word}" + ("" if count == 1 else "s")


def support_level(claim: Claim, weak_below: float = DEFAULT_WEAK_BELOW) -> SupportLevel:
    """``supported``, ``weak``, ``unsupported`` or ``not_checked`` (see the module docstring).

    >>> from grounding_core import Claim
    >>> support_level(Claim("x", citation_indices=(0,), score=0.65))
    'weak'
    >>> support_level(Claim("x", citation_indices=(0,)))  # no claim-level score
    'supported'
    """
    status = claim.status
    if status == "supported" and claim.score is not None and claim.score < weak_below:
        return "weak"
    return status


@dataclass(frozen=True, slots=True)
class NumberedSource:
    """A cited source, numbered in order of first citation; ``source_index``: its position in
    the sources given to the check (``None``: an answer's reference or an unnamed chunk)."""

    number: int
    title: str
    uri: str
    text: str
    source_index: int | None = None

    @property
    def label(self) -> str:
        """The title, else the URI, else ``Source n``."""
        return self.title or self.uri or f"Source {self.number}"


@dataclass(frozen=True, slots=True)
class CitedPassage:
    """The text a segment cites, from source ``number``."""

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class Segment:
    """A claim (or a cited segment of an answer) with its support level and citations.

    ``start``/``end``: string indices into the answer; ``located`` is false without a usable
    span (none, out of range, or overlapping an earlier segment): it cannot be marked in the text.
    """

    index: int
    text: str
    start: int | None
    end: int | None
    level: SupportLevel
    score: float | None
    passages: tuple[CitedPassage, ...] = ()
    located: bool = False

    @property
    def numbers(self) -> tuple[int, ...]:
        """The numbers of the sources it cites, in order, each once."""
        return tuple(dict.fromkeys(p.number for p in self.passages))


@dataclass(frozen=True, slots=True)
class AnnotatedText:
    """An answer, its segments and the numbered sources they cite; ``score``: the support score
    of a check (or an answer's grounding score); ``source_count``: the sources given."""

    text: str
    segments: tuple[Segment, ...]
    sources: tuple[NumberedSource, ...]
    score: float | None
    source_count: int = 0

    def counts(self) -> dict[SupportLevel, int]:
        """How many segments have each support level (every level present, in order)."""
        return {level: sum(s.level == level for s in self.segments) for level in SUPPORT_LEVELS}

    def pieces(self) -> Iterator[tuple[str, Segment | None]]:
        """The text cut into runs: each located segment, and the plain text between them."""
        cursor = 0
        for segment in sorted((s for s in self.segments if s.located), key=lambda s: s.start or 0):
            start, end = segment.start or 0, segment.end or 0
            if start > cursor:
                yield self.text[cursor:start], None
            yield self.text[start:end], segment
            cursor = end
        if cursor < len(self.text):
            yield self.text[cursor:], None

    def source(self, number: int) -> NumberedSource:
        """The source numbered ``number``."""
        return self.sources[number - 1]


class _Numbering:
    """Numbers sources in order of first citation."""

    def __init__(self) -> None:
        self._numbers: dict[object, int] = {}
        self.sources: list[NumberedSource] = []

    def number(self, key: object, title: str, uri: str, text: str, source_index: int | None) -> int:
        """The number of the source ``key``, given one the first time it is cited."""
        number = self._numbers.get(key)
        if number is None:
            number = self._numbers[key] = len(self._numbers) + 1
            self.sources.append(NumberedSource(number, title, uri, text, source_index))
        return number

    def annotated(
        self, text: str, segments: list[Segment], score: float | None, source_count: int
    ) -> AnnotatedText:
        """The ``AnnotatedText``, each segment ``located`` where its span is usable and overlaps
        no other."""
        taken: list[tuple[int, int]] = []
        for number, segment in enumerate(segments):
            start, end = segment.start, segment.end
            if start is None or end is None or not 0 <= start < end <= len(text):
                continue
            if all(end <= s or start >= e for s, e in taken):
                taken.append((start, end))
                segments[number] = dataclasses.replace(segment, located=True)
        return AnnotatedText(text, tuple(segments), tuple(self.sources), score, source_count)


def annotate_grounding(
    result: GroundingResult,
    sources: Sequence[GroundingSource] = (),
    *,
    weak_below: float = DEFAULT_WEAK_BELOW,
) -> AnnotatedText:
    """The claims of a grounding check, their support levels and their numbered sources, named
    by the ``title`` and ``source``/``uri`` metadata of the ``sources`` given to the check (else
    by the cited chunks' own title and URI)."""
    numbering = _Numbering()
    segments: list[Segment] = []
    for index, claim in enumerate(result.claims):
        passages: list[CitedPassage] = []
        for chunk in claim.citations:
            source_index = chunk.source_index
            if source_index is not None and 0 <= source_index < len(sources):
                source = sources[source_index]
                title = str(source.metadata.get("title") or "")
                uri = str(source.metadata.get("source") or source.metadata.get("uri") or "")
                number = numbering.number(source_index, title, uri, source.text, source_index)
            else:
                key = source_index if source_index is not None else ("text", chunk.text)
                number = numbering.number(key, chunk.title, chunk.uri, chunk.text, source_index)
            passages.append(CitedPassage(number, chunk.text))
        level = support_level(claim, weak_below)
        segments.append(
            Segment(index, claim.text, claim.start, claim.end, level, claim.score, tuple(passages))
        )
    return numbering.annotated(result.answer, segments, result.support_score, len(sources))


def annotate_answer(answer: GroundedAnswer) -> AnnotatedText:
    """The cited segments of an ``answerQuery`` answer (``supported`` when they have
    references, whose content are their passages) and its numbered references."""
    numbering = _Numbering()
    segments: list[Segment] = []
    for index, citation in enumerate(answer.citations):
        passages = tuple(
            CitedPassage(
                numbering.number(r.name or r.uri or r.content, r.title, r.uri, r.content, None),
                r.content,
            )
            for r in citation.references
        )
        level: SupportLevel = "supported" if passages else "not_checked"
        segments.append(
            Segment(index, citation.text, citation.start, citation.end, level, None, passages)
        )
    return numbering.annotated(
        answer.answer_text, segments, answer.grounding_score, len(answer.references)
    )


Verdict = tuple[bool, str]
"""Whether an answer passes, and the verdict in words as the views print it."""


def shown_verdict(result: GroundingResult, min_support_score: float | None) -> Verdict | None:
    """The verdict a view shows next to the score: none without a minimum or a score."""
    if min_support_score is None or result.support_score is None:
        return None
    return result.verdict(min_support_score)


def format_score(score: float | None) -> str:
    """A score as people read it: two decimals (records keep the full value), ``n/a`` if none.

    >>> format_score(0.6666666865348816), format_score(None)
    ('0.67', 'n/a')
    """
    return "n/a" if score is None else f"{score:.2f}"

"""``GroundingReport``: a grounding result tied back to the caller's own source objects
(LangChain ``Document``s, LlamaIndex nodes), so that every claim's citations resolve to the
very objects that were checked.

>>> from grounding_core import CitedChunk, Claim, GroundingResult
>>> cited = CitedChunk("Paris is the capital of France.", source_index=1, fact_index=0)
>>> claim = Claim("Paris is the capital.", 0, 21, 0, 21, (0,), (cited,))
>>> result = GroundingResult("Paris is the capital.", 1.0, (claim,))
>>> report = GroundingReport(result, sources=("doc-a", "doc-b"), grounding_sources=())
>>> report.claims[0].sources, report.passed, report.source_ids
(('doc-b',), True, ('0', '1'))
>>> report.metadata()["claims"][0]["source_ids"]
['1']
>>> report.answer_with_citations
'Paris is the capital.[1]'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from rich.console import RenderableType
from rich.text import Text

from grounding_core._errors import InputError, UngroundedAnswerError
from grounding_core._records import (
    DEFAULT_MIN_SUPPORT_SCORE,
    Claim,
    ClaimStatus,
    GroundingResult,
    GroundingSource,
)
from grounding_core.citations import CITATION_ANNOTATIONS_KEY, citations_metadata, report_citations
from grounding_core.metadata import grounding_metadata
from grounding_core.views.annotate import DEFAULT_WEAK_BELOW, annotate_grounding, format_score
from grounding_core.views.html import check_failed_html, grounding_html
from grounding_core.views.markdown import grounding_markdown
from grounding_core.views.terminal import grounding_rich
from grounding_core.views.untrusted import one_line

S = TypeVar("S")

UngroundedPolicy = Literal["annotate", "raise", "fallback"]

NOTHING_TO_CHECK = "the answer is empty: there is nothing to check"
"""The ``skipped_reason`` of the report of an empty (or blank) answer."""


@dataclass(frozen=True, slots=True)
class ClaimReport(Generic[S]):
    """A claim and the caller's source objects it cites."""

    claim: Claim
    sources: tuple[S, ...]

    @property
    def text(self) -> str:
        """The claim text."""
        return self.claim.text

    @property
    def start(self) -> int | None:
        """String index where the claim starts in the answer."""
        return self.claim.start

    @property
    def end(self) -> int | None:
        """String index where the claim ends (exclusive)."""
        return self.claim.end

    @property
    def status(self) -> ClaimStatus:
        """``supported``, ``unsupported`` or ``not_checked``."""
        return self.claim.status

    @property
    def score(self) -> float | None:
        """The claim-level score (when it was asked for)."""
        return self.claim.score


@dataclass(frozen=True, slots=True)
class GroundingReport(Generic[S]):
    """A grounding check of an answer against ``sources``: ``error`` is set (and ``result`` is
    ``None``) when the check itself failed; ``source_ids`` name the sources in the metadata (a
    source without one is named by its position: ``"0"``, ``"1"``, ...)."""

    result: GroundingResult | None
    sources: tuple[S, ...]
    grounding_sources: tuple[GroundingSource, ...]
    min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE
    error: str | None = None
    source_ids: tuple[str, ...] = ()
    skipped_reason: str | None = None

    def __post_init__(self) -> None:
        ids = self.source_ids or ("",) * len(self.sources)
        if len(ids) != len(self.sources):
            raise InputError(
                f"source_ids has {len(ids)} ids for {len(self.sources)} sources: "
                "give one id per source, in the same order",
                field="source_ids",
            )
        # Frozen: the positions of unnamed sources are filled in once, here.
        named = tuple(source_id or str(index) for index, source_id in enumerate(ids))
        object.__setattr__(self, "source_ids", named)

    @classmethod
    def failed(
        cls,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        error: BaseException,
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """The report of a check that could not be done: no result, ``error`` says why."""
        return cls(
            None,
            sources=tuple(sources),
            grounding_sources=tuple(grounding_sources),
            min_support_score=min_support_score,
            error=f"{type(error).__name__}: {error}",
            source_ids=tuple(source_ids),
        )

    @classmethod
    def nothing_to_check(
        cls,
        answer: str,
        sources: Sequence[S],
        grounding_sources: Sequence[GroundingSource],
        min_support_score: float = DEFAULT_MIN_SUPPORT_SCORE,
        source_ids: Sequence[str] = (),
    ) -> GroundingReport[S]:
        """An empty answer's report (not sent): not passed, ``skipped_reason=NOTHING_TO_CHECK``."""
        return cls(
            GroundingResult(answer, None),
            sources=tuple(sources),
            grounding_sources=tuple(grounding_sources),
            min_support_score=min_support_score,
            source_ids=tuple(source_ids),
            skipped_reason=NOTHING_TO_CHECK,
        )

    @property
    def support_score(self) -> float | None:
        """The service's support score (0..1), ``None`` if the check failed or was skipped."""
        return self.result.support_score if self.result else None

    @property
    def passed(self) -> bool:
        """The pass mark (``GroundingResult.verdict``: every checked claim supported, or the
        support score reaches ``min_support_score``); a failed check never passes."""
        return self.result is not None and self.result.verdict(self.min_support_score)[0]

    @property
    def claims(self) -> tuple[ClaimReport[S], ...]:
        """Every claim with the source objects it cites."""
        if self.result is None:
            return ()
        sources = self.sources
        return tuple(
            ClaimReport(c, tuple(sources[i] for i in c.source_indices if i < len(sources)))
            for c in self.result.claims
        )

    @property
    def unsupported_claims(self) -> tuple[ClaimReport[S], ...]:
        """Claims that were checked and found no support."""
        return tuple(c for c in self.claims if c.status == "unsupported")

    @property
    def answer_with_citations(self) -> str:
        """The answer with inline markers after each cited claim, for code written for
        langchain-google-community's ``VertexAICheckGroundingWrapper``.

        After a claim come ``[i]`` markers, one per cited source, ``i`` its **0-based**
        position in ``sources`` (not, as the peer, Google's ``citation_indices``):
        ``"Paris is the capital.[0] Lyon is old.[1][2]"``; the answer's text is kept exactly.
        No marker for a claim without a usable span or a source the report was not given.
        """
        count = len(self.sources)
        return self._marked(lambda claim: [i for i in claim.source_indices if i < count])

    @property
    def answer_with_citation_indices(self) -> str:
        """The answer with each claim's ``citation_indices`` (Google's: indices into
        ``result.cited_chunks``) as ``[i]`` markers after it, what
        langchain-google-community's ``answer_with_citations`` writes; the answer's text is
        kept exactly (the peer joins the claims with spaces)."""
        return self._marked(lambda claim: list(claim.citation_indices))

    def _marked(self, indices: Callable[[Claim], list[int]]) -> str:
        """The answer with ``[i]`` after each claim with a usable span, for ``indices(claim)``."""
        if self.result is None:
            return ""
        claims = self.result.claims
        out: list[str] = []
        for piece, segment in annotate_grounding(self.result).pieces():
            out.append(piece)
            if segment is not None:
                out.extend(f"[{index}]" for index in indices(claims[segment.index]))
        return "".join(out)

    def markdown(self) -> str:
        """The answer with ``[n]`` markers and a numbered source list (``grounding_core.views``)."""
        if self.result is None:
            return ""
        return grounding_markdown(self.result, self.grounding_sources)

    def html(
        self,
        *,
        title: str = "Grounding report",
        question: str | None = None,
        weak_below: float = DEFAULT_WEAK_BELOW,
        full_document: bool = True,
    ) -> str:
        """A self-contained HTML report (``grounding_core.views``): claims highlighted by
        support, their cited sources; ``full_document=False`` gives an embeddable fragment."""
        if self.result is None:
            error = self.error or "no result"
            return check_failed_html(error, title=title, full_document=full_document)
        return grounding_html(
            self.result,
            self.grounding_sources,
            title=title,
            question=question,
            weak_below=weak_below,
            min_support_score=self.min_support_score,
            full_document=full_document,
        )

    def _repr_html_(self) -> str:
        return self.html(full_document=False)

    def __rich__(self) -> RenderableType:
        """The terminal view: ``rich.print(report)`` (``grounding_core.views``)."""
        if self.result is None:
            error = one_line(str(self.error))
            return Text(f"The grounding check failed: {error}", style="bold red")
        if self.skipped_reason is not None:
            return Text(f"Nothing was checked: {self.skipped_reason}", style="yellow")
        return grounding_rich(
            self.result, self.grounding_sources, min_support_score=self.min_support_score
        )

    def metadata(self) -> dict[str, Any]:
        """JSON-safe metadata, the same in every framework (``docs/metadata.md``):
        ``grounding_metadata`` plus ``passed``, ``error``, ``source_ids``, ``skipped_reason``,
        the ids of the sources each claim cites and the citation spans; every key is there for
        a failed check too."""
        ids = self.source_ids
        result = self.result or GroundingResult("", None)  # a failed check: every key, no claims
        base = grounding_metadata(result)
        for claim_metadata, claim in zip(base["claims"], result.claims, strict=True):
            claim_metadata["source_ids"] = [ids[i] for i in claim.source_indices if i < len(ids)]
        return {
            **base,
            "passed": self.passed,
            "error": self.error,
            "source_ids": list(ids),
            "skipped_reason": self.skipped_reason,
            CITATION_ANNOTATIONS_KEY: citations_metadata(report_citations(self)),
        }

    def enforce(self, policy: UngroundedPolicy) -> None:
        """Raise ``UngroundedAnswerError`` when ``policy`` is ``raise`` and the answer did not
        pass (an empty answer never raises)."""
        if policy == "raise" and not self.passed and self.skipped_reason is None:
            unsupported = [repr(claim.text) for claim in self.unsupported_claims]
            raise UngroundedAnswerError(
                f"the answer's support score {format_score(self.support_score)} is below the "
                f"required {format_score(self.min_support_score)}; "
                f"{len(unsupported)} claim(s) unsupported"
                + (f": {'; '.join(unsupported)}" if unsupported else ""),
                result=self,
            )

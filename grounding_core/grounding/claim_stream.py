"""``ClaimStream`` and ``AsyncClaimStream``: each sentence of a streamed answer checked as soon
as it is complete, against the sources known so far (early warnings: the adapters still check
the whole answer at the end). At most ``max_concurrent`` checks are in flight; a sentence
shorter than ``min_chars`` is joined with the next. A failed check is a verdict with status
``"error"`` (logged, the stream goes on); any other exception propagates.

>>> pieces = SentencePieces(min_chars=10)
>>> [p.text for p in pieces.feed("Paris is in France. It is la")]
['Paris is in France.']
>>> [p.text for p in pieces.feed("rge. Ok. ")], [(p.text, p.start) for p in pieces.finish()]
(['It is large.'], [('Ok.', 33)])
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
import unicodedata
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal, get_args

from grounding_core._errors import ConfigurationError, GroundingError
from grounding_core._offsets import utf8_length
from grounding_core._records import Claim, GroundingSource
from grounding_core.views.untrusted import one_line

from .check import GroundingCheck
from .report import GroundingReport

logger = logging.getLogger(__name__)

DEFAULT_CLAIM_MIN_CHARS = 40
"""A sentence shorter than this many characters is checked together with the next one."""

DEFAULT_MAX_CONCURRENT_CHECKS = 4
"""Checks of one stream in flight at once."""

MAX_CONCURRENT_CHECKS_LIMIT = 32

UnsupportedClaimPolicy = Literal["continue", "stop", "fallback"]
"""What a stream does at its first unsupported claim (``fallback``: stop, give the fallback)."""

VerdictStatus = Literal["supported", "unsupported", "not_checked", "error"]

_POLICIES = get_args(UnsupportedClaimPolicy)
_WORST_FIRST = ("unsupported", "supported", "not_checked")

# Sentence ends: after one of these (and any closing quotes or brackets), a sentence is
# complete once the next character has arrived and is a space; after a full-width (CJK)
# terminal no space is needed.
_TERMINALS = frozenset(".!?…")
_WIDE_TERMINALS = frozenset("。！？．")
_CLOSERS = frozenset("\"'”’»)]}」』】）")
_MAX_CLOSERS = 4  # a longer run of closers is not a sentence end (bounds the rescans)


@dataclass(frozen=True, slots=True)
class SentencePiece:
    """A complete piece of a streamed answer and its string and UTF-8 byte spans in it."""

    index: int
    text: str
    start: int
    end: int
    byte_start: int
    byte_end: int


class SentencePieces:
    """Cuts a growing text into sentence pieces, scanning each character once."""

    def __init__(self, *, min_chars: int = DEFAULT_CLAIM_MIN_CHARS) -> None:
        self.min_chars = min_chars
        self.text = ""
        self._start = 0  # where the next piece starts
        self._scan = 0  # the first character not scanned yet
        self._bytes = 0  # UTF-8 bytes of text[:_start]
        self._count = 0

    def feed(self, delta: str) -> list[SentencePiece]:
        """Add ``delta`` to the text; the pieces it completes."""
        self.text += delta
        pieces = []
        text, size = self.text, len(self.text)
        i = self._scan
        while i < size:
            if text[i] not in _TERMINALS and text[i] not in _WIDE_TERMINALS:
                i += 1
                continue
            j = i + 1
            while j < size and j - i <= _MAX_CLOSERS and text[j] in _CLOSERS:
                j += 1
            if j >= size:
                break  # the next character decides: wait for it
            following = text[j]
            wide = text[i] in _WIDE_TERMINALS
            if (following.isspace() or wide) and not unicodedata.category(following).startswith(
                "M"
            ):
                piece = self._cut(j, final=False)
                if piece is not None:
                    pieces.append(piece)
            i = j
        self._scan = i
        return pieces

    def finish(self) -> list[SentencePiece]:
        """The rest of the text as the last piece (none if it is blank)."""
        piece = self._cut(len(self.text), final=True)
        return [] if piece is None else [piece]

    def _cut(self, end: int, *, final: bool) -> SentencePiece | None:
        start = self._start
        while start < end and self.text[start].isspace():
            start += 1
        while end > start and self.text[end - 1].isspace():
            end -= 1
        if start >= end or (not final and end - start < self.min_chars):
            return None  # blank, or short: joined with the next sentence
        byte_start = self._bytes + utf8_length(self.text[self._start : start])
        piece_text = self.text[start:end]
        piece = SentencePiece(
            self._count, piece_text, start, end, byte_start, byte_start + utf8_length(piece_text)
        )
        self._count += 1
        self._start, self._bytes = end, piece.byte_end
        return piece


@dataclass(frozen=True, slots=True)
class ClaimVerdict(SentencePiece):
    """The check of one piece of a streamed answer: ``status`` is its worst claim's
    (``"not_checked"`` without claims) or ``"error"`` (``error`` says why). Spans (the
    ``claims``' too) index the whole answer; ``source_indices``/``source_ids``: sources cited."""

    status: VerdictStatus
    support_score: float | None = None
    claims: tuple[Claim, ...] = ()
    source_indices: tuple[int, ...] = ()
    source_ids: tuple[str, ...] = ()
    error: str | None = None

    @property
    def unsupported(self) -> bool:
        """True when a claim of the piece was checked and found no support."""
        return self.status == "unsupported"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe values (the claims as their ``to_dict()``)."""
        return {
            **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)},
            "claims": [c.to_dict() for c in self.claims],
            "source_indices": list(self.source_indices),
            "source_ids": list(self.source_ids),
        }


def _shifted(claim: Claim, piece: SentencePiece) -> Claim:
    def plus(value: int | None, offset: int) -> int | None:
        return None if value is None else value + offset

    return dataclasses.replace(
        claim,
        start=plus(claim.start, piece.start),
        end=plus(claim.end, piece.start),
        byte_start=plus(claim.byte_start, piece.byte_start),
        byte_end=plus(claim.byte_end, piece.byte_start),
    )


def _verdict(piece: SentencePiece, report: GroundingReport[Any]) -> ClaimVerdict:
    claims = tuple(_shifted(c.claim, piece) for c in report.claims)
    # The piece's status is its worst claim's.
    status: VerdictStatus = min(
        (c.status for c in claims), key=_WORST_FIRST.index, default="not_checked"
    )
    indices = tuple(dict.fromkeys(i for c in claims for i in c.source_indices))
    return ClaimVerdict(
        **dataclasses.asdict(piece),  # where the piece is: the verdict's spans
        status=status,
        support_score=report.support_score,
        claims=claims,
        source_indices=indices,
        source_ids=tuple(report.source_ids[i] for i in indices),
    )


def _failed(piece: SentencePiece, error: GroundingError) -> ClaimVerdict:
    logger.warning("a streamed claim could not be checked: %s", error, exc_info=error)
    return ClaimVerdict(**dataclasses.asdict(piece), status="error", error=one_line(str(error)))


def check_stream_settings(
    on_unsupported_claim: object, max_concurrent: object, min_chars: object
) -> None:
    """A ``ConfigurationError`` naming the first bad streaming setting (values not shown)."""
    if on_unsupported_claim not in _POLICIES:
        raise ConfigurationError(
            "on_unsupported_claim must be 'continue', 'stop' or 'fallback', got a "
            f"{type(on_unsupported_claim).__name__}",
            field="on_unsupported_claim",
        )
    for name, value, low, high in (
        ("max_concurrent_checks", max_concurrent, 1, MAX_CONCURRENT_CHECKS_LIMIT),
        ("claim_min_chars", min_chars, 1, 10_000),
    ):
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if not is_int or not low <= value <= high:  # type: ignore[operator]
            raise ConfigurationError(
                f"{name} must be an integer from {low} to {high}, got a {type(value).__name__}"
                + (" out of range" if is_int else ""),
                field=name,
                limit=high,
            )


class _Claims:
    """What the sync and async streams share: all but how a check is run."""

    def __init__(
        self,
        check: GroundingCheck,
        *,
        on_unsupported_claim: UnsupportedClaimPolicy = "continue",
        max_concurrent: int = DEFAULT_MAX_CONCURRENT_CHECKS,
        min_chars: int = DEFAULT_CLAIM_MIN_CHARS,
    ) -> None:
        check_stream_settings(on_unsupported_claim, max_concurrent, min_chars)
        self.check = check
        self.on_unsupported_claim = on_unsupported_claim
        self.max_concurrent = max_concurrent
        self.pieces = SentencePieces(min_chars=min_chars)
        self.sources: tuple[Sequence[Any], Sequence[GroundingSource], Sequence[str]] | None = None
        self.waiting: list[SentencePiece] = []
        self.verdicts: list[ClaimVerdict] = []  # every verdict, in completion order
        self._handed = 0
        self._lock = threading.Lock()
        self.stop_verdict: ClaimVerdict | None = None

    @property
    def text(self) -> str:
        """The answer streamed so far."""
        return self.pieces.text

    @property
    def stopped(self) -> bool:
        """True once an unsupported claim stopped the stream (policy ``stop``/``fallback``)."""
        return self.stop_verdict is not None

    def _record(self, verdict: ClaimVerdict) -> None:
        with self._lock:
            self.verdicts.append(verdict)
            if verdict.unsupported and self.on_unsupported_claim != "continue":
                self.stop_verdict = self.stop_verdict or verdict  # the first one stops

    def ready(self) -> list[ClaimVerdict]:
        """The verdicts completed since the last call, in completion order."""
        with self._lock:
            new = self.verdicts[self._handed :]
            self._handed = len(self.verdicts)
        return new

    def set_sources(
        self,
        sources: Sequence[Any],
        grounding_sources: Sequence[GroundingSource],
        source_ids: Sequence[str] = (),
    ) -> None:
        """The sources known so far (they replace the earlier ones); waiting pieces start."""
        self.sources = (tuple(sources), tuple(grounding_sources), tuple(source_ids))
        self._submit(self._takeable())

    def add_text(self, delta: str) -> None:
        """Add streamed text; the pieces it completes start their checks (never waiting)."""
        self.waiting.extend(self.pieces.feed(delta))
        self._submit(self._takeable())

    def _submit(self, pieces: list[SentencePiece]) -> None:
        raise NotImplementedError  # a thread pool's, or tasks

    def _last_piece(self) -> None:
        """The end of the stream: the rest of the text is the last piece (unless stopped)."""
        if not self.stopped:
            self.waiting.extend(self.pieces.finish())
            self._submit(self._takeable())

    def _takeable(self) -> list[SentencePiece]:
        if self.sources is None or not self.sources[0]:
            return []  # no facts yet: the pieces wait for them
        taken, self.waiting = self.waiting, []
        return taken


class ClaimStream(_Claims):
    """Claim checks of a streamed answer on Google's sync client, in a thread pool."""

    def __init__(self, check: GroundingCheck, **settings: Any) -> None:
        super().__init__(check, **settings)
        self._pool = ThreadPoolExecutor(self.max_concurrent, thread_name_prefix="claim-check")
        self._futures: list[Future[None]] = []

    def _submit(self, pieces: list[SentencePiece]) -> None:
        self._futures.extend(self._pool.submit(self._run, p, self.sources) for p in pieces)

    def _run(self, piece: SentencePiece, sources: Any) -> None:
        try:
            verdict = _verdict(piece, self.check.check(piece.text, *sources))
        except GroundingError as exc:
            verdict = _failed(piece, exc)
        self._record(verdict)

    def finish(self) -> list[ClaimVerdict]:
        """Check the last piece (unless stopped), wait for every check (an unexpected exception
        is raised) and give the verdicts not handed out yet."""
        self._last_piece()
        try:
            for future in self._futures:
                future.result()
        finally:
            self.close()
        return self.ready()

    def close(self) -> None:
        """Stop: checks not started are dropped (a stream closed early)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class AsyncClaimStream(_Claims):
    """Claim checks of a streamed answer as tasks on Google's async client; ``on_verdict`` (a
    coroutine function) is awaited with each verdict as soon as its check completes."""

    def __init__(
        self,
        check: GroundingCheck,
        *,
        on_verdict: Callable[[ClaimVerdict], Awaitable[None]] | None = None,
        **settings: Any,
    ) -> None:
        super().__init__(check, **settings)
        self.on_verdict = on_verdict
        self._slots = asyncio.Semaphore(self.max_concurrent)
        self._tasks: list[asyncio.Task[None]] = []

    def _submit(self, pieces: list[SentencePiece]) -> None:
        self._tasks.extend(asyncio.ensure_future(self._run(p, self.sources)) for p in pieces)

    async def _run(self, piece: SentencePiece, sources: Any) -> None:
        async with self._slots:
            try:
                verdict = _verdict(piece, await self.check.acheck(piece.text, *sources))
            except GroundingError as exc:
                verdict = _failed(piece, exc)
        self._record(verdict)
        if self.on_verdict is not None:
            await self.on_verdict(verdict)

    async def finish(self) -> list[ClaimVerdict]:
        """Async ``ClaimStream.finish``."""
        self._last_piece()
        try:
            await asyncio.gather(*self._tasks)
        finally:
            self.close()
        return self.ready()

    def close(self) -> None:
        """Stop: checks still running are cancelled (a stream closed early)."""
        for task in self._tasks:
            task.cancel()

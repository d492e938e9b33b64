"""``ClaimStream`` and ``AsyncClaimStream``: the claims of a streamed answer checked as it
streams, each sentence as soon as it is complete.

checkGrounding splits an answer into claims, roughly its sentences, so a sentence can be
checked alone, against the sources known so far, while the rest of the answer is still being
generated. ``SentencePieces`` cuts a growing text into pieces; ``ClaimStream`` (sync, a small
thread pool over Google's sync client) and ``AsyncClaimStream`` (tasks on Google's async
client) check each piece with a ``GroundingCheck`` and give back one ``ClaimVerdict`` per piece,
its spans indexing the whole answer. The adapters run one full check of the whole answer at
the end, as without streaming: the verdicts are early warnings, the final report is the record.

Quota: at most ``max_concurrent`` checks are in flight, and a sentence shorter than
``min_chars`` is joined with the next (a piece is one call). A check that fails is a verdict
with status ``"error"`` (logged, the stream goes on); any other exception propagates.

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
"""What a stream does at its first unsupported claim: go on, stop the answer there, or stop it
and give the fallback answer."""

VerdictStatus = Literal["supported", "unsupported", "not_checked", "error"]

_POLICIES = get_args(UnsupportedClaimPolicy)

# Sentence ends: after one of these (and any closing quotes or brackets), a sentence is
# complete once the next character has arrived and is a space; after a full-width (CJK)
# terminal no space is needed.
_TERMINALS = frozenset(".!?…")
_WIDE_TERMINALS = frozenset("。！？．")
_CLOSERS = frozenset("\"'”’»)]}」』】）")
_MAX_CLOSERS = 4  # a longer run of closers is not a sentence end (bounds the rescans)


@dataclass(frozen=True, slots=True)
class SentencePiece:
    """A complete piece of a streamed answer: its text and where it is in the whole answer
    (string indices and UTF-8 byte offsets, end exclusive)."""

    index: int
    text: str
    start: int
    end: int
    byte_start: int
    byte_end: int


class SentencePieces:
    """Cuts a growing text into sentence pieces (see the module docstring); each character is
    scanned once, so a stream of any length costs linear time."""

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
class ClaimVerdict:
    """The check of one piece of a streamed answer.

    ``status``: ``"unsupported"`` when a claim of the piece was checked and found no support,
    ``"supported"`` when its checked claims all were, ``"not_checked"`` when it had none
    (greetings, connectives), ``"error"`` when the check failed (``error`` says why). Spans index
    the whole answer (``answer[start:end] == text``), as do the ``claims``' spans.
    ``source_indices``/``source_ids`` are the sources cited, by position and by id.
    """

    index: int
    text: str
    start: int
    end: int
    byte_start: int
    byte_end: int
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
            "index": self.index,
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "byte_start": self.byte_start,
            "byte_end": self.byte_end,
            "status": self.status,
            "support_score": self.support_score,
            "claims": [c.to_dict() for c in self.claims],
            "source_indices": list(self.source_indices),
            "source_ids": list(self.source_ids),
            "error": self.error,
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
    statuses = {c.status for c in claims}
    status: VerdictStatus = (
        "unsupported"
        if "unsupported" in statuses
        else "supported"
        if "supported" in statuses
        else "not_checked"
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
    """A ``ConfigurationError`` naming the first bad streaming setting (values never shown:
    they may be anything a caller typed)."""
    if on_unsupported_claim not in _POLICIES:
        raise ConfigurationError(
            "on_unsupported_claim must be 'continue', 'stop' or 'fallback', got a "
            f"{type(on_unsupported_claim).__name__}"
        )
    for name, value, low, high in (
        ("max_concurrent_checks", max_concurrent, 1, MAX_CONCURRENT_CHECKS_LIMIT),
        ("claim_min_chars", min_chars, 1, 10_000),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigurationError(
                f"{name} must be an integer from {low} to {high}, got a {type(value).__name__}"
                + (" out of range" if isinstance(value, int) else "")
            )


class _Claims:
    """What the sync and async streams share: the pieces, the sources known so far, the
    pieces waiting for sources, the verdicts not yet handed out and the stop decision."""

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
            if (
                verdict.unsupported
                and self.on_unsupported_claim != "continue"
                and self.stop_verdict is None
            ):
                self.stop_verdict = verdict

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
        """Add streamed text; the pieces it completes start their checks (never waiting for
        one)."""
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
    """Claim checks of a streamed answer on Google's sync client, in a thread pool of
    ``max_concurrent`` workers: ``add_text`` never waits for a check."""

    def __init__(self, check: GroundingCheck, **settings: Any) -> None:
        super().__init__(check, **settings)
        self._pool = ThreadPoolExecutor(self.max_concurrent, thread_name_prefix="claim-check")
        self._futures: list[Future[None]] = []

    def _submit(self, pieces: list[SentencePiece]) -> None:
        assert self.sources is not None or not pieces
        for piece in pieces:
            self._futures.append(self._pool.submit(self._run, piece, self.sources))

    def _run(self, piece: SentencePiece, sources: Any) -> None:
        try:
            report = self.check.check(piece.text, *sources)
        except GroundingError as exc:
            self._record(_failed(piece, exc))
            return
        self._record(_verdict(piece, report))

    def finish(self) -> list[ClaimVerdict]:
        """Check the last piece (unless stopped), wait for every check, and give the verdicts
        not handed out yet; the pool is shut down. A check's unexpected exception is raised."""
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
    """Claim checks of a streamed answer as tasks on Google's async client, at most
    ``max_concurrent`` at once; ``on_verdict`` (a coroutine function) is awaited with each
    verdict as soon as its check completes."""

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
        for piece in pieces:
            self._tasks.append(asyncio.ensure_future(self._run(piece, self.sources)))

    async def _run(self, piece: SentencePiece, sources: Any) -> None:
        async with self._slots:
            try:
                report = await self.check.acheck(piece.text, *sources)
            except GroundingError as exc:
                verdict = _failed(piece, exc)
            else:
                verdict = _verdict(piece, report)
        self._record(verdict)
        if self.on_verdict is not None:
            await self.on_verdict(verdict)

    async def finish(self) -> list[ClaimVerdict]:
        """Check the last piece (unless stopped), wait for every check and give the verdicts
        not handed out yet. A check's unexpected exception is raised."""
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

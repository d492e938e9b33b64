"""``grounding_core.grounding.claim_stream``: the claims of a streamed answer checked as it
streams.

Covers ``SentencePieces`` (where sentences end in any script and with any chunking, closers
and combining marks, short sentences joined, spans in string indices and UTF-8 bytes of the
whole answer), ``check_stream_settings`` at its bounds, ``ClaimVerdict``, and ``ClaimStream``
(sync, a thread pool) and ``AsyncClaimStream`` (tasks) on the emulator: pieces wait for the
sources, the verdicts' spans (and their claims') index the whole answer, the stop and fallback
policies, at most ``max_concurrent`` checks in flight, a failed check as an ``"error"`` verdict,
any other exception raised by ``finish``, and an early ``close``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
import threading

import pytest

from grounding_core import (
    AsyncClaimStream,
    ClaimStream,
    ClaimVerdict,
    ConfigurationError,
    GroundingCheck,
    GroundingSource,
    ServiceUnavailableError,
)
from grounding_core.grounding.claim_stream import (
    DEFAULT_CLAIM_MIN_CHARS,
    DEFAULT_MAX_CONCURRENT_CHECKS,
    MAX_CONCURRENT_CHECKS_LIMIT,
    SentencePieces,
    check_stream_settings,
)

STREAM_LOGGER = "grounding_core.grounding.claim_stream"
# A code the retry policy retries (quota): UNAVAILABLE would be retried too, but a sync emulator
# channel answers it by watching its connectivity for a while, and a connection closed in that
# while raises in grpc's polling thread.
TRANSIENT = "RESOURCE_EXHAUSTED"


def pieces_of(chunks, min_chars=1):
    pieces = SentencePieces(min_chars=min_chars)
    found = []
    for chunk in chunks:
        found += pieces.feed(chunk)
    return found + pieces.finish()


def texts(text, min_chars=1):
    return [p.text for p in pieces_of([text], min_chars)]


# -- SentencePieces ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "It costs 3.14 euros. Yes! Really? Done",
            ["It costs 3.14 euros.", "Yes!", "Really?", "Done"],
        ),
        (
            'He said "stop." Then (it ended.) Next…  last',
            ['He said "stop."', "Then (it ended.)", "Next…", "last"],
        ),
        (
            "東京は首都です。人口は多い！本当？ok",
            ["東京は首都です。", "人口は多い！", "本当？", "ok"],
        ),
        ("Ｘ．Ｙ", ["Ｘ．", "Ｙ"]),  # a full-width full stop
        ("「東京。」大阪。", ["「東京。」", "大阪。"]),
        ("مرحبا بالعالم. שלום עולם. done", ["مرحبا بالعالم.", "שלום עולם.", "done"]),
        ("A.\nB.\tC.", ["A.", "B.", "C."]),
        ("", []),
        ("   ", []),
        ("no end", ["no end"]),
        ("3.14", ["3.14"]),
        ("A. ", ["A."]),
        ("? Yes.", ["?", "Yes."]),  # a stop as the very first character
        ("no end ", ["no end"]),
        ("A. B \n\t", ["A.", "B"]),
    ],
    ids=[
        "latin",
        "closers-and-ellipsis",
        "cjk-needs-no-space",
        "full-width-stop",
        "cjk-closers",
        "rtl",
        "any-whitespace",
        "empty",
        "blank",
        "no-end",
        "a-number",
        "trailing-space",
        "first-character",
        "one-trailing-space",
        "trailing-whitespace",
    ],
)
def test_where_sentences_end(text, expected):
    assert texts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('A.)"») B.', ['A.)"»)', "B."]),  # four closers: still a sentence end
        ('A.)"»)] B.', ['A.)"»)] B.']),  # five: not a sentence end
        ("A。\u0301b", ["A。\u0301b"]),  # a combining mark belongs to the stop before it
        ("A.\u0301 b", ["A.\u0301 b"]),
        ("A. \u0301b", ["A.", "\u0301b"]),
    ],
    ids=["four-closers", "five-closers", "mark-after-wide-stop", "mark-after-stop", "space-first"],
)
def test_closers_and_combining_marks_at_a_sentence_end(text, expected):
    assert texts(text) == expected


def test_a_sentence_is_complete_once_the_next_character_has_come():
    pieces = SentencePieces(min_chars=1)
    assert pieces.feed("A.") == []
    assert [p.text for p in pieces.feed(" ")] == ["A."]
    assert pieces.feed('B."') == []
    assert [p.text for p in pieces.feed(" C")] == ['B."']
    assert pieces.feed("東京。") == []
    assert [p.text for p in pieces.feed("大")] == ["C東京。"]
    assert [p.text for p in pieces.finish()] == ["大"]
    assert pieces.finish() == []  # nothing is left
    assert pieces.text == 'A. B." C東京。大'


@pytest.mark.parametrize(
    ("text", "min_chars", "expected"),
    [
        ("Hi. Ok. This one is long enough.", 10, ["Hi. Ok. This one is long enough."]),
        ("A long enough sentence. Ok.", 10, ["A long enough sentence.", "Ok."]),
        ("123456789. Next one.", 10, ["123456789.", "Next one."]),  # exactly min_chars
        ("12345678. Next one.", 10, ["12345678. Next one."]),  # one short: joined
        ("  12345678. Next.", 10, ["12345678. Next."]),  # the spaces do not count
        ("Hi.", 10, ["Hi."]),  # the last piece, however short
    ],
)
def test_a_sentence_shorter_than_min_chars_goes_with_the_next(text, min_chars, expected):
    assert texts(text, min_chars) == expected


def test_the_default_min_chars():
    assert DEFAULT_CLAIM_MIN_CHARS == 40
    assert SentencePieces().min_chars == 40
    assert texts("Short one. " * 3 + "x", DEFAULT_CLAIM_MIN_CHARS) == [
        "Short one. Short one. Short one. x"
    ]


SCRIPTS = [
    "é is two bytes. 世 is three. 😀 is four. 👩‍👩‍👧 is a family. e\u0301 combines.",
    "Ünïcödé ñ. Ωμέγα. Кириллица. Done",
    "\u3000東京。\u3000大阪です。 القاهرة.  שלום.",
]


@pytest.mark.parametrize("text", SCRIPTS)
def test_pieces_index_the_whole_text_whatever_the_chunking(text):
    whole = pieces_of([text])
    encoded = text.encode()
    chunkings = [
        [text],
        list(text),
        [text[i : i + 3] for i in range(0, len(text), 3)],
        [text[:5], "", text[5:]],
    ]
    for chunks in chunkings:
        pieces = pieces_of(chunks)
        assert pieces == whole
        for index, piece in enumerate(pieces):
            assert piece.index == index
            assert text[piece.start : piece.end] == piece.text
            assert encoded[piece.byte_start : piece.byte_end].decode() == piece.text
            assert piece.text == piece.text.strip()


def test_leading_whitespace_of_any_width_is_counted_in_bytes():
    first, second = pieces_of(["\u3000A. \u3000B."])
    assert (first.text, first.start, first.end, first.byte_start, first.byte_end) == (
        "A.",
        1,
        3,
        3,
        5,
    )
    assert (second.text, second.start, second.end, second.byte_start, second.byte_end) == (
        "B.",
        5,
        7,
        9,
        11,
    )


@pytest.mark.parametrize("first", ["\u0080", "\u0800", "\U00010000"])
def test_the_first_multibyte_characters_at_the_edges(first):
    text = f"{first}. {first}{first}."
    size = len(first.encode())
    one, two = pieces_of(list(text))
    assert (one.start, one.end, one.byte_start, one.byte_end) == (0, 2, 0, size + 1)
    assert (two.start, two.end, two.byte_start, two.byte_end) == (3, 6, size + 2, 3 * size + 3)


def test_a_long_stream_without_a_sentence_end_is_one_piece():
    # Each feed scans only the new characters: 20,000 one-character feeds stay fast.
    pieces = SentencePieces(min_chars=1)
    for _ in range(20_000):
        assert pieces.feed("a") == []
    (piece,) = pieces.finish()
    assert (piece.text, piece.end, piece.byte_end) == ("a" * 20_000, 20_000, 20_000)


# -- settings and verdicts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "max_concurrent", "min_chars"),
    [
        ("continue", 1, 1),
        ("stop", MAX_CONCURRENT_CHECKS_LIMIT, 10_000),
        ("fallback", DEFAULT_MAX_CONCURRENT_CHECKS, DEFAULT_CLAIM_MIN_CHARS),
    ],
)
def test_settings_within_their_bounds_are_accepted(policy, max_concurrent, min_chars):
    assert (DEFAULT_MAX_CONCURRENT_CHECKS, MAX_CONCURRENT_CHECKS_LIMIT) == (4, 32)
    assert check_stream_settings(policy, max_concurrent, min_chars) is None


# The error's field and limit (the highest value allowed; a policy has none).
SETTING_LIMITS = {
    "on_unsupported_claim": None,
    "max_concurrent_checks": MAX_CONCURRENT_CHECKS_LIMIT,
    "claim_min_chars": 10_000,
}


@pytest.mark.parametrize(
    ("policy", "max_concurrent", "min_chars", "start", "end"),
    [
        ("secret-token", 4, 40, "on_unsupported_claim must be 'continue', 'stop' or", "got a str"),
        (None, 4, 40, "on_unsupported_claim", "got a NoneType"),
        ("stop", 0, 40, "max_concurrent_checks must be an integer from 1 to 32", "out of range"),
        ("stop", 33, 40, "max_concurrent_checks must be an integer from 1 to 32", "out of range"),
        ("stop", 2.0, 40, "max_concurrent_checks must be an integer from 1 to 32", "got a float"),
        ("stop", 4, 0, "claim_min_chars must be an integer from 1 to 10000", "out of range"),
        ("stop", 4, 10_001, "claim_min_chars must be an integer from 1 to 10000", "out of range"),
        ("stop", 4, "40", "claim_min_chars must be an integer from 1 to 10000", "got a str"),
    ],
)
def test_a_bad_setting_is_named_without_its_value(policy, max_concurrent, min_chars, start, end):
    with pytest.raises(ConfigurationError) as info:
        check_stream_settings(policy, max_concurrent, min_chars)
    field = start.split()[0]
    assert (info.value.field, info.value.limit) == (field, SETTING_LIMITS[field])
    message = str(info.value)
    assert message.startswith(start)
    assert message.endswith(end)
    assert "secret-token" not in message
    assert "33" not in message
    assert "10001" not in message


@pytest.mark.parametrize(
    ("max_concurrent", "min_chars", "name"),
    [(True, 40, "max_concurrent_checks"), (4, False, "claim_min_chars")],
)
def test_a_bool_setting_is_refused_as_a_bool(max_concurrent, min_chars, name):
    with pytest.raises(ConfigurationError, match=f"{name} must be an integer .*, got a bool"):
        check_stream_settings("stop", max_concurrent, min_chars)


@pytest.mark.parametrize(("max_concurrent", "min_chars"), [(True, 40), (4, True)])
def test_a_bool_setting_is_not_said_to_be_out_of_range(max_concurrent, min_chars):
    with pytest.raises(ConfigurationError) as info:
        check_stream_settings("stop", max_concurrent, min_chars)
    assert "out of range" not in str(info.value)


def test_the_streams_check_their_settings(connections):
    check = GroundingCheck(connections[0])
    with pytest.raises(ConfigurationError, match="max_concurrent_checks"):
        ClaimStream(check, max_concurrent=0)
    with pytest.raises(ConfigurationError, match="on_unsupported_claim"):
        AsyncClaimStream(check, on_unsupported_claim="halt")
    with pytest.raises(ConfigurationError, match="claim_min_chars"):
        AsyncClaimStream(check, min_chars=0)


@pytest.mark.parametrize(
    ("status", "unsupported"),
    [("supported", False), ("unsupported", True), ("not_checked", False), ("error", False)],
)
def test_a_verdict_is_unsupported_only_when_a_claim_found_no_support(status, unsupported):
    verdict = ClaimVerdict(0, "A.", 0, 2, 0, 2, status)
    assert verdict.unsupported is unsupported


def test_a_verdict_as_a_dict_has_every_field():
    from grounding_core import Claim

    claim = Claim("Zü.", 4, 7, 4, 8)
    verdict = ClaimVerdict(
        2, "Zü.", 4, 7, 4, 8, "supported", 0.5, (claim,), (1, 0), ("b", "a"), None
    )
    assert verdict.to_dict() == {
        "index": 2,
        "text": "Zü.",
        "start": 4,
        "end": 7,
        "byte_start": 4,
        "byte_end": 8,
        "status": "supported",
        "support_score": 0.5,
        "claims": [claim.to_dict()],
        "source_indices": [1, 0],
        "source_ids": ["b", "a"],
        "error": None,
    }
    bare = ClaimVerdict(0, "A.", 0, 2, 0, 2, "error", error="down")
    assert bare.to_dict()["error"] == "down"
    assert (bare.support_score, bare.claims, bare.source_indices, bare.source_ids) == (
        None,
        (),
        (),
        (),
    )


# -- streams on the emulator -------------------------------------------------------------------

GREETING = "Thanks for asking!"
LARGEST = "Zürich is the largest city in Switzerland."
MADE_UP = "The Eiffel Tower was built on the Moon in 1066."
RIVER = "The Limmat river flows through Zürich."
ANSWER = f"{GREETING} {LARGEST} {MADE_UP} {RIVER}"
# An empty source between the two facts: the verdicts cite the caller's positions.
SOURCES = (
    ["fact-a", "fact-empty", "fact-b"],
    [GroundingSource(LARGEST), GroundingSource(""), GroundingSource(RIVER)],
    ["a", "e", "b"],
)


@pytest.fixture
def check(connections):
    return GroundingCheck(connections[0])


def by_index(verdicts):
    return sorted(verdicts, key=lambda v: v.index)


def assert_verdicts(verdicts):
    greeting, largest, made_up, river = by_index(verdicts)
    assert [v.text for v in (greeting, largest, made_up, river)] == [
        GREETING,
        LARGEST,
        MADE_UP,
        RIVER,
    ]
    assert [v.status for v in (greeting, largest, made_up, river)] == [
        "not_checked",
        "supported",
        "unsupported",
        "supported",
    ]
    encoded = ANSWER.encode()
    for verdict in verdicts:
        assert ANSWER[verdict.start : verdict.end] == verdict.text
        assert encoded[verdict.byte_start : verdict.byte_end].decode() == verdict.text
        assert verdict.error is None
        (claim,) = verdict.claims
        # The claims' spans are shifted to index the whole answer too.
        assert (claim.start, claim.end, claim.byte_start, claim.byte_end) == (
            verdict.start,
            verdict.end,
            verdict.byte_start,
            verdict.byte_end,
        )
    assert (largest.source_indices, largest.source_ids) == ((0,), ("a",))
    assert (river.source_indices, river.source_ids) == ((2,), ("b",))
    assert (made_up.source_indices, made_up.source_ids) == ((), ())
    assert (greeting.source_indices, greeting.source_ids) == ((), ())
    assert [v.support_score for v in (largest, made_up, river)] == [1.0, 0.0, 1.0]
    assert made_up.claims[0].text == MADE_UP


def test_a_sync_stream_checks_each_piece_once_the_sources_are_known(check):
    claims = ClaimStream(check, min_chars=10)
    claims.add_text(ANSWER[:40])  # before the sources: the pieces wait for them
    claims.set_sources([], [], [])  # no sources yet either
    claims.add_text(ANSWER[40:60])
    claims.set_sources(*SOURCES)
    for start in range(60, len(ANSWER), 7):
        claims.add_text(ANSWER[start : start + 7])
    assert claims.text == ANSWER
    verdicts = claims.ready()
    verdicts += claims.finish()
    assert_verdicts(verdicts)
    assert claims.verdicts == verdicts
    assert claims.ready() == []
    assert (claims.stopped, claims.stop_verdict) == (False, None)


@pytest.mark.parametrize(
    ("text", "statuses", "status"),
    [
        (f"{GREETING} {LARGEST}", ["not_checked", "supported"], "supported"),
        (f"{LARGEST} {MADE_UP}", ["supported", "unsupported"], "unsupported"),
        ("…", [], "not_checked"),  # no claim in it
    ],
    ids=["supported-over-not-checked", "unsupported-over-supported", "no-claim"],
)
def test_a_pieces_status_is_its_worst_claims(check, text, statuses, status):
    claims = ClaimStream(check, min_chars=len(text))  # the text is one piece
    claims.set_sources(*SOURCES)
    claims.add_text(text)
    (verdict,) = claims.finish()
    assert [claim.status for claim in verdict.claims] == statuses
    assert (verdict.text, verdict.status) == (text, status)


class SpanlessCheck(GroundingCheck):
    """The real check, its claims' spans dropped: Google documents ``start_pos``/``end_pos``
    as optional, the emulator always sends them."""

    def check(self, *args, **kwargs):
        report = super().check(*args, **kwargs)
        spanless = tuple(
            dataclasses.replace(c, start=None, end=None, byte_start=None, byte_end=None)
            for c in report.result.claims
        )
        return dataclasses.replace(
            report, result=dataclasses.replace(report.result, claims=spanless)
        )


def test_a_claim_without_a_span_stays_without_one_in_its_verdict(connections):
    claims = ClaimStream(SpanlessCheck(connections[0]), min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{GREETING} {LARGEST}")
    _, largest = by_index(claims.finish())
    assert (largest.start, largest.byte_start) == (len(GREETING) + 1, len(GREETING) + 1)
    (claim,) = largest.claims
    assert (claim.text, claim.start, claim.end, claim.byte_start, claim.byte_end) == (
        LARGEST,
        None,
        None,
        None,
        None,
    )
    assert largest.status == "supported"


def test_a_stream_without_sources_checks_nothing(check, emulator):
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    claims = ClaimStream(check, min_chars=10)
    claims.set_sources([], [], [])
    claims.add_text(ANSWER)
    assert claims.finish() == []
    assert emulator.faults.pending == 1


def test_the_pieces_wait_for_the_callers_sources(check, emulator):
    # Grounding sources without the objects they stand for: nothing to cite yet.
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    claims = ClaimStream(check, min_chars=10)
    claims.set_sources([], [GroundingSource(LARGEST)], [])
    claims.add_text(ANSWER)
    assert claims.finish() == []
    assert emulator.faults.pending == 1


def test_facts_without_grounding_sources_are_checked_against_none(check):
    claims = ClaimStream(check, min_chars=10)
    claims.set_sources(["doc"], [], [])
    claims.add_text(LARGEST)
    (verdict,) = claims.finish()
    assert (verdict.text, verdict.status, verdict.source_ids) == (LARGEST, "unsupported", ())


async def test_an_async_stream_announces_each_verdict(check):
    announced: list[ClaimVerdict] = []
    first = asyncio.Event()

    async def on_verdict(verdict):
        announced.append(verdict)
        first.set()

    claims = AsyncClaimStream(check, on_verdict=on_verdict, max_concurrent=1, min_chars=10)
    claims.add_text(f"{GREETING} {LARGEST} ")
    claims.set_sources(*SOURCES)
    await asyncio.wait_for(first.wait(), 10)  # a check completes while no more text comes
    assert announced[0].status == "not_checked"
    handed = claims.ready()
    assert handed[0] is announced[0]
    claims.add_text(ANSWER[len(GREETING) + len(LARGEST) + 2 :])
    rest = await claims.finish()  # the verdicts not handed out yet
    assert_verdicts(announced)
    assert handed + rest == claims.verdicts == announced
    assert claims.ready() == []  # all handed out


async def test_an_async_stream_without_a_callback(check):
    claims = AsyncClaimStream(check, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    verdicts = await claims.finish()
    assert_verdicts(verdicts)
    assert claims.on_verdict is None


@pytest.mark.parametrize("policy", ["stop", "fallback"])
async def test_the_first_unsupported_claim_stops_the_stream(check, policy):
    stopped = asyncio.Event()

    async def on_verdict(verdict):
        if verdict.unsupported:
            stopped.set()

    second = "Penguins live on the Moon since 1066."
    claims = AsyncClaimStream(
        check, on_verdict=on_verdict, on_unsupported_claim=policy, max_concurrent=1, min_chars=10
    )
    claims.set_sources(*SOURCES)
    claims.add_text(f"{LARGEST} {MADE_UP} {second} ")
    await asyncio.wait_for(stopped.wait(), 10)
    assert claims.stopped
    claims.add_text(RIVER)  # the rest of the answer: not checked once stopped
    verdicts = await claims.finish()
    assert [v.text for v in by_index(verdicts)] == [LARGEST, MADE_UP, second]
    # The first unsupported verdict stops it; a later one does not replace it.
    assert claims.stop_verdict.text == MADE_UP
    assert claims.stop_verdict is by_index(verdicts)[1]


async def test_the_continue_policy_checks_every_claim(check):
    claims = AsyncClaimStream(check, on_unsupported_claim="continue", min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    verdicts = await claims.finish()
    assert len(verdicts) == 4
    assert (claims.stopped, claims.stop_verdict) == (False, None)


def test_a_sync_stream_stops_at_an_unsupported_claim(check):
    claims = ClaimStream(check, on_unsupported_claim="stop", max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{LARGEST} {MADE_UP} {RIVER}")
    verdicts = claims.finish()
    assert claims.stopped
    assert claims.stop_verdict.text == MADE_UP
    assert [v.text for v in by_index(verdicts)][:2] == [LARGEST, MADE_UP]


class CountingCheck(GroundingCheck):
    """The real check, counting the checks in flight at once."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.lock = threading.Lock()
        self.now = self.most = 0
        self.threads: set[str] = set()

    def _enter(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def _leave(self) -> None:
        with self.lock:
            self.now -= 1

    def check(self, *args, **kwargs):
        self.threads.add(threading.current_thread().name)
        self._enter()
        try:
            return super().check(*args, **kwargs)
        finally:
            self._leave()

    async def acheck(self, *args, **kwargs):
        self._enter()
        try:
            return await super().acheck(*args, **kwargs)
        finally:
            self._leave()


@pytest.mark.parametrize("max_concurrent", [1, 2, 3])
async def test_at_most_max_concurrent_async_checks_are_in_flight(connections, max_concurrent):
    counting = CountingCheck(connections[0])
    claims = AsyncClaimStream(counting, max_concurrent=max_concurrent, min_chars=10)
    assert claims.max_concurrent == max_concurrent
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)  # four pieces, their tasks started together
    assert len(await claims.finish()) == 4
    assert counting.most == max_concurrent


def test_one_sync_check_at_a_time_with_max_concurrent_1(connections):
    counting = CountingCheck(connections[0])
    claims = ClaimStream(counting, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    assert len(claims.finish()) == 4
    assert counting.most == 1
    (thread,) = counting.threads  # one worker, named for what it does
    assert thread.startswith("claim-check_")


def assert_error_verdicts(verdicts, caplog):
    failed, *rest = by_index(verdicts)
    assert failed == ClaimVerdict(
        0,
        GREETING,
        0,
        len(GREETING),
        0,
        len(GREETING),
        "error",
        error=failed.error,
    )
    assert "RESOURCE_EXHAUSTED" in failed.error
    assert "\n" not in failed.error
    assert [v.status for v in rest] == ["supported", "unsupported", "supported"]
    warnings = [r for r in caplog.records if r.name == STREAM_LOGGER]
    assert [r.levelno for r in warnings] == [logging.WARNING]
    assert warnings[0].getMessage() == f"a streamed claim could not be checked: {failed.error}"
    assert isinstance(warnings[0].exc_info[1], ServiceUnavailableError)


def test_a_failed_sync_check_is_an_error_verdict(check, emulator, caplog):
    emulator.faults.fail("CheckGrounding", code=TRANSIENT, times=1)
    claims = ClaimStream(check, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    with caplog.at_level(logging.WARNING, logger=STREAM_LOGGER):
        verdicts = claims.finish()
    assert_error_verdicts(verdicts, caplog)


async def test_a_failed_async_check_is_an_error_verdict(check, emulator, caplog):
    emulator.faults.fail("CheckGrounding", code=TRANSIENT, times=1)
    announced = []

    async def on_verdict(verdict):
        announced.append(verdict)

    claims = AsyncClaimStream(check, on_verdict=on_verdict, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    with caplog.at_level(logging.WARNING, logger=STREAM_LOGGER):
        verdicts = await claims.finish()
    assert_error_verdicts(verdicts, caplog)
    assert announced == verdicts


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")


BROKEN_SOURCES = (["x"], [GroundingSource(LARGEST, {"k": Unprintable()})], ["x"])


def test_any_other_exception_of_a_sync_check_is_raised_by_finish(check):
    claims = ClaimStream(check, min_chars=10)
    claims.set_sources(*BROKEN_SOURCES)
    claims.add_text(LARGEST)
    with pytest.raises(RuntimeError, match="no text"):
        claims.finish()


async def test_any_other_exception_of_an_async_check_is_raised_by_finish(check):
    claims = AsyncClaimStream(check, min_chars=10)
    claims.set_sources(*BROKEN_SOURCES)
    claims.add_text(LARGEST)
    with pytest.raises(RuntimeError, match="no text"):
        await claims.finish()


async def test_closing_an_async_stream_cancels_its_checks(check, emulator):
    emulator.faults.fail("CheckGrounding", code="NOT_FOUND", times=1)
    claims = AsyncClaimStream(check, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{ANSWER} ")  # four pieces, none started yet
    claims.close()
    with pytest.raises(asyncio.CancelledError):
        await claims.finish()
    assert claims.verdicts == []
    assert emulator.faults.pending == 1  # no check reached the service


class GatedCheck(GroundingCheck):
    """The real check, started only once the test opens the gate."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.started, self.gate = threading.Event(), threading.Event()

    def check(self, *args, **kwargs):
        self.started.set()
        self.gate.wait(10)
        return super().check(*args, **kwargs)


def test_closing_a_sync_stream_drops_the_checks_not_started(connections):
    gated = GatedCheck(connections[0])
    claims = ClaimStream(gated, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{ANSWER} ")  # four pieces, one worker
    assert gated.started.wait(10)  # the first check is running
    claims.close()  # returns at once: it does not wait for the running check
    assert claims.verdicts == []
    gated.gate.set()
    with pytest.raises(concurrent.futures.CancelledError):
        claims.finish()  # waits for the running check; the others were dropped
    assert [v.text for v in claims.verdicts] == [GREETING]

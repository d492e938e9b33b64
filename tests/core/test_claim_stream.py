"""Claims checked while an answer streams: where sentences end (any script, any chunking), the
spans of the verdicts in the whole answer, and the checks on the emulator (sync and async)."""

import asyncio

import pytest

from grounding_core import (
    AsyncClaimStream,
    ClaimStream,
    ConfigurationError,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    SentencePieces,
)

FACT = "Paris is the capital of France. The Seine flows through Paris."
SUPPORTED = "Paris is the capital of France."
MADE_UP = "The Eiffel Tower was built on the Moon in 1066."
ANSWER = f"{SUPPORTED} {MADE_UP} The Seine flows through Paris."


async def until(condition, seconds=10.0):
    """Wait for ``condition()`` (a bounded wait: a broken stream fails, it does not hang)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.005)


def pieces_of(text, chunks, min_chars=1):
    pieces = SentencePieces(min_chars=min_chars)
    found = []
    for chunk in chunks:
        found += pieces.feed(chunk)
    return found + pieces.finish()


def texts(text, chunks=None, min_chars=1):
    return [p.text for p in pieces_of(text, chunks or [text], min_chars)]


def test_sentence_ends():
    assert texts("It costs 3.14 euros. Yes! Really? Done") == [
        "It costs 3.14 euros.",
        "Yes!",
        "Really?",
        "Done",
    ]
    assert texts('He said "stop." Then (it ended.) Next…  last') == [
        'He said "stop."',
        "Then (it ended.)",
        "Next…",
        "last",
    ]
    assert texts("東京は首都です。人口は多い！本当？ok") == [
        "東京は首都です。",
        "人口は多い！",
        "本当？",
        "ok",
    ]
    assert texts("") == []
    assert texts("   ") == []
    assert texts("no end") == ["no end"]
    # a combining mark after a full stop belongs to it: no sentence end there
    assert texts("A。\u0301b") == ["A。\u0301b"]
    assert texts("مرحبا بالعالم. שלום עולם. done") == ["مرحبا بالعالم.", "שלום עולם.", "done"]


def test_short_sentences_go_with_the_next():
    assert texts("Hi. Ok. This one is long enough.", min_chars=10) == [
        "Hi. Ok. This one is long enough."
    ]
    assert texts("A long enough sentence. Ok.", min_chars=10) == ["A long enough sentence.", "Ok."]


@pytest.mark.parametrize(
    "text",
    [
        "é is two bytes. 世 is three. 😀 is four. 👩‍👩‍👧 is a family. e\u0301 combines.",
        "Ünïcödé ñ. Ωμέγα. Кириллица. Done",
    ],
)
def test_spans_in_the_whole_text_whatever_the_chunking(text):
    whole = pieces_of(text, [text])
    encoded = text.encode()
    for chunks in ([text], list(text), [text[i : i + 3] for i in range(0, len(text), 3)]):
        pieces = pieces_of(text, chunks)
        assert pieces == whole
        for index, piece in enumerate(pieces):
            assert piece.index == index
            assert text[piece.start : piece.end] == piece.text
            assert encoded[piece.byte_start : piece.byte_end].decode() == piece.text


def test_first_multibyte_characters_at_the_edges():
    for first in ("\u0080", "\u0800", "\U00010000"):
        text = f"{first}. {first}{first}."
        (one, two) = pieces_of(text, list(text))
        assert (one.start, one.end, one.byte_start, one.byte_end) == (
            0,
            2,
            0,
            len(first.encode()) + 1,
        )
        assert text.encode()[two.byte_start : two.byte_end].decode() == f"{first}{first}."


def test_a_long_stream_is_linear():
    pieces = SentencePieces(min_chars=1)
    for _ in range(20_000):
        pieces.feed("a")  # no sentence end: each feed scans only the new character
    assert pieces._scan == 20_000
    assert [p.text for p in pieces.finish()] == ["a" * 20_000]


@pytest.fixture
def check(emulator):
    connection = DiscoveryEngineConnection.create(
        project_id="test-project", emulator_host=emulator.address, retry=None
    )
    return GroundingCheck.create(connection)


SOURCES = (["fact"], [GroundingSource(FACT)], ["doc-1"])


def assert_verdicts(verdicts, answer=ANSWER):
    by_index = sorted(verdicts, key=lambda v: v.index)
    assert [v.text for v in by_index] == [SUPPORTED, MADE_UP, "The Seine flows through Paris."]
    assert [v.status for v in by_index] == ["supported", "unsupported", "supported"]
    for verdict in by_index:
        assert answer[verdict.start : verdict.end] == verdict.text
        assert answer.encode()[verdict.byte_start : verdict.byte_end].decode() == verdict.text
        for claim in verdict.claims:
            assert answer[claim.start : claim.end] == claim.text
    assert by_index[0].source_indices == (0,)
    assert by_index[0].source_ids == ("doc-1",)
    assert by_index[1].source_ids == ()
    assert by_index[1].support_score == 0.0
    assert by_index[0].to_dict()["status"] == "supported"
    assert by_index[1].to_dict()["claims"][0]["text"] == MADE_UP


def test_sync_stream(check):
    claims = ClaimStream(check, min_chars=10)
    claims.add_text(ANSWER[:20])  # before the sources: the pieces wait for them
    claims.set_sources(*SOURCES)
    for start in range(20, len(ANSWER), 7):
        claims.add_text(ANSWER[start : start + 7])
    assert claims.text == ANSWER
    verdicts = claims.ready()
    verdicts += claims.finish()
    assert_verdicts(verdicts)
    assert claims.verdicts == verdicts
    assert claims.ready() == []
    assert not claims.stopped


async def test_async_stream_announces_each_verdict(check):
    announced = []

    async def on_verdict(verdict):
        announced.append(verdict)

    claims = AsyncClaimStream(check, on_verdict=on_verdict, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{SUPPORTED} ")
    await until(lambda: announced)  # the check completes while no more text comes
    assert announced[0].status == "supported"
    claims.add_text(ANSWER[len(SUPPORTED) + 1 :])
    rest = await claims.finish()
    assert_verdicts(announced)
    assert claims.ready() == []  # all handed out
    assert len(rest) == 3


async def test_stop_at_the_first_unsupported_claim(check):
    claims = AsyncClaimStream(check, on_unsupported_claim="stop", min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(f"{SUPPORTED} {MADE_UP} ")
    await until(lambda: claims.stopped)
    assert claims.stop_verdict.text == MADE_UP
    await claims.finish()  # the rest of the text is not checked once stopped
    assert len(claims.verdicts) == 2


def test_a_failed_check_is_an_error_verdict(check, emulator):
    emulator.faults.fail("CheckGrounding", code="UNAVAILABLE", times=1)
    claims = ClaimStream(check, max_concurrent=1, min_chars=10)
    claims.set_sources(*SOURCES)
    claims.add_text(ANSWER)
    verdicts = sorted(claims.finish(), key=lambda v: v.index)
    assert verdicts[0].status == "error"
    assert "UNAVAILABLE" in verdicts[0].error
    assert verdicts[0].claims == ()
    assert verdicts[0].support_score is None
    assert [v.status for v in verdicts[1:]] == ["unsupported", "supported"]


def test_settings_are_checked_without_showing_values(check):
    with pytest.raises(ConfigurationError, match="on_unsupported_claim must be") as excinfo:
        ClaimStream(check, on_unsupported_claim="secret-token")
    assert "secret-token" not in str(excinfo.value)
    for name, value in (("max_concurrent", 0), ("max_concurrent", 33), ("min_chars", True)):
        key = {"max_concurrent": "max_concurrent_checks", "min_chars": "claim_min_chars"}[name]
        with pytest.raises(ConfigurationError, match=f"^{key} must be an integer"):
            ClaimStream(check, **{name: value})
    assert ClaimStream(check, max_concurrent=32, min_chars=1).max_concurrent == 32

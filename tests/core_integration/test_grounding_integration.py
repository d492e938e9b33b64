"""The core's check_grounding/acheck_grounding against the emulator, with non-ASCII answers."""

from __future__ import annotations

import pytest

from grounding_core import (
    GroundingSource,
    GroundingSpec,
    acheck_grounding,
    check_grounding,
    grounding_config_path,
)
from tests.conftest import PROJECT

CONFIG = grounding_config_path(PROJECT)
SOURCES = [
    GroundingSource(
        "東京都は日本の首都です。人口は約千四百万人です。",
        {"uri": "https://example.jp/tokyo", "title": "東京", "year": 2024},
    ),
    "",  # empty: skipped, and citations still point at the right sources
    "القاهرة هي عاصمة مصر.",
    "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month.",
    "The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e.",
]
ANSWER = (
    "東京都は日本の首都です。 القاهرة هي عاصمة مصر. "
    "Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month. "
    "The cafe\u0301s of Pa\u0301ris serve cre\u0300me bru\u0302le\u0301e. "
    "Penguins 🐧 live on the Moon."
)


def check_spans(result) -> None:
    encoded = ANSWER.encode("utf-8")
    assert result.claims
    for claim in result.claims:
        assert ANSWER[claim.start : claim.end] == claim.text
        assert encoded[claim.byte_start : claim.byte_end].decode("utf-8") == claim.text


def test_check_grounding_spans_and_sources(de_clients):
    result = check_grounding(
        de_clients, CONFIG, ANSWER, SOURCES, GroundingSpec(enable_claim_level_score=True)
    )
    check_spans(result)
    texts = [c.text for c in result.claims]
    assert texts[0] == "東京都は日本の首都です。"
    assert texts[-1] == "Penguins 🐧 live on the Moon."
    by_text = {c.text: c for c in result.claims}
    assert by_text["東京都は日本の首都です。"].source_indices == (0,)
    assert by_text["القاهرة هي عاصمة مصر."].source_indices == (2,)
    assert by_text["Rockets 🚀 launch from Cape Canaveral 🇺🇸 every month."].source_indices == (3,)
    assert by_text["Penguins 🐧 live on the Moon."].status == "unsupported"
    tokyo = by_text["東京都は日本の首都です。"].citations[0]
    assert tokyo.uri == "https://example.jp/tokyo"
    assert tokyo.title == "東京"
    assert tokyo.attributes["year"] == "2024"
    assert result.support_score == pytest.approx(0.8)
    assert all(c.score is not None for c in result.claims)


async def test_acheck_grounding(de_async_clients):
    result = await acheck_grounding(de_async_clients, CONFIG, ANSWER, SOURCES)
    check_spans(result)
    assert result.support_score == pytest.approx(0.8)
    assert all(c.score is None for c in result.claims)


def test_check_sources_cites_the_callers_own_objects(de_clients):
    from grounding_core import GroundingSource, check_sources, grounding_config_path

    objects = [object(), object()]
    report = check_sources(
        de_clients,
        grounding_config_path("test-project"),
        "Paris is the capital of France.",
        objects,
        [GroundingSource(""), GroundingSource("Paris is the capital of France.")],
        min_support_score=0.5,
    )
    assert report.passed
    assert report.claims[0].sources == (objects[1],)
    assert report.sources == tuple(objects)

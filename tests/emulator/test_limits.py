"""The client's copies of Google's documented limits agree with the emulator's (``limits.py``).

The two sides keep their own values on purpose (a client bug must not be mirrored by the
emulator); this test is what keeps them from drifting apart.
"""

from __future__ import annotations

import pytest

import grounding_core.facts as client_facts
import grounding_core.specs as client_specs
import grounding_core.summaries as client_summaries
from grounding_emulator import limits

AGREEING = [
    (client_facts.MAX_FACTS, limits.MAX_FACTS, 200),
    (client_facts.MAX_FACT_CHARS, limits.MAX_FACT_CHARS, 10_000),
    (client_facts.MAX_ANSWER_TOKENS, limits.MAX_ANSWER_TOKENS, 4_096),
    (client_facts.MAX_ANSWER_CHARS, limits.MAX_ANSWER_CHARS, 131_072),  # Google does not say
    (client_specs.GroundingSpec().citation_threshold, limits.DEFAULT_CITATION_THRESHOLD, 0.6),
    (client_specs.MAX_PAGE_SIZE, limits.MAX_PAGE_SIZE, 100),
    (client_specs.MAX_CHUNK_NEIGHBOURS, limits.MAX_CHUNK_NEIGHBOURS, 3),
    (client_specs.MAX_DEVELOPER_KNOWLEDGE_TEXT, limits.MAX_DEVELOPER_KNOWLEDGE_TEXT, 500),
    (client_specs.AnswerSpec().max_return_results, limits.DEFAULT_MAX_RETURN_RESULTS, 10),
    (client_specs.MAX_EXTRACTIVE_ANSWERS, limits.MAX_EXTRACTIVE_ANSWERS, 5),
    (client_specs.MAX_EXTRACTIVE_SEGMENTS, limits.MAX_EXTRACTIVE_SEGMENTS, 10),
    (client_specs.MAX_FACET_SPECS, limits.MAX_FACET_SPECS, 100),
    (client_specs.MAX_USER_PSEUDO_ID, limits.MAX_USER_PSEUDO_ID, 128),
    (
        client_summaries.MAX_SUMMARY_RESULTS_DOCUMENTS,
        limits.MAX_SUMMARY_RESULTS_DOCUMENTS,
        10,
    ),
    (client_summaries.MAX_SUMMARY_RESULTS_CHUNKS, limits.MAX_SUMMARY_RESULTS_CHUNKS, 50),
]


@pytest.mark.parametrize(("client_value", "emulator_value", "documented"), AGREEING)
def test_client_and_emulator_limits_agree_with_google(
    client_value: float, emulator_value: float, documented: float
) -> None:
    assert client_value == emulator_value == documented


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("Paris is the capital.", 5),  # four words and a full stop
        ("北京是首都", 5),  # one token per CJK character
        ("v3.45.0 🙂", 6),  # v3 . 45 . 0 and the emoji as a mark
        ("café naïve", 2),  # precomposed accents stay inside their words
    ],
)
def test_token_estimates_agree(text: str, tokens: int) -> None:
    assert client_facts.estimate_tokens(text) == limits.estimate_tokens(text) == tokens

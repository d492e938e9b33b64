"""The client's copies of Google's documented limits agree with the emulator's (``limits.py``).

The two sides keep their own values on purpose (a client bug must not be mirrored by the
emulator); this test is what keeps them from drifting apart.
"""

from __future__ import annotations

import pytest

import grounding_core.answers.answer_query as client_answers
import grounding_core.grounding.check as client_check
import grounding_core.ranking as client_ranking
import grounding_core.search.specs as client_specs
import grounding_core.search.summaries as client_summaries
from grounding_core import AnswerSpec, ChunkSearchSpec, GroundingSpec, InputError
from grounding_emulator import limits

AGREEING = [
    (client_check.MAX_FACTS, limits.MAX_FACTS, 200),
    (client_check.MAX_FACT_CHARS, limits.MAX_FACT_CHARS, 10_000),
    (client_check.MAX_ANSWER_TOKENS, limits.MAX_ANSWER_TOKENS, 4_096),
    (client_check.MAX_ANSWER_CHARS, limits.MAX_ANSWER_CHARS, 131_072),  # Google does not say
    (GroundingSpec().citation_threshold, limits.DEFAULT_CITATION_THRESHOLD, 0.6),
    (client_specs.MAX_PAGE_SIZE, limits.MAX_PAGE_SIZE, 100),
    (client_specs.MAX_CHUNK_NEIGHBOURS, limits.MAX_CHUNK_NEIGHBOURS, 3),
    (client_specs.MAX_DEVELOPER_KNOWLEDGE_TEXT, limits.MAX_DEVELOPER_KNOWLEDGE_TEXT, 500),
    (AnswerSpec().max_return_results, limits.DEFAULT_MAX_RETURN_RESULTS, 10),
    (client_answers.MAX_REPHRASE_STEPS, limits.MAX_REPHRASE_STEPS, 5),
    (client_specs.MAX_EXTRACTIVE_ANSWERS, limits.MAX_EXTRACTIVE_ANSWERS, 5),
    (client_specs.MAX_EXTRACTIVE_SEGMENTS, limits.MAX_EXTRACTIVE_SEGMENTS, 10),
    (client_specs.MAX_FACET_SPECS, limits.MAX_FACET_SPECS, 100),
    (client_ranking.MAX_RANK_RECORDS, limits.MAX_RANK_RECORDS, 200),
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


def test_user_pseudo_id_limits_agree_with_google() -> None:
    """The client's user_pseudo_id bound is private: read it from the error that enforces it."""
    documented = 128
    assert ChunkSearchSpec(user_pseudo_id="u" * documented).user_pseudo_id == "u" * documented
    with pytest.raises(InputError) as excinfo:
        ChunkSearchSpec(user_pseudo_id="u" * (documented + 1))
    assert excinfo.value.field == "user_pseudo_id"
    assert excinfo.value.limit == limits.MAX_USER_PSEUDO_ID == documented


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
    assert client_check.estimate_tokens(text) == limits.estimate_tokens(text) == tokens

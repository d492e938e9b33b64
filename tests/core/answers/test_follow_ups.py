"""``grounding_core.answers.follow_ups``: a follow-up question and the earlier ones as one
standalone query, for an API without sessions.

Covers ``condense_question`` (the most recent questions first, read in the order they were
asked; ``max_questions`` and ``max_chars`` at their edges, the oldest questions left out
first; whitespace and empty turns; its argument checks) and ``history_text`` with
``CONDENSE_QUESTION_TEMPLATE``, the prompt a language model rewrites the follow-up with.
"""

from __future__ import annotations

import pytest

from grounding_core import InputError, condense_question
from grounding_core.answers.follow_ups import (
    CONDENSE_QUESTION_TEMPLATE,
    DEFAULT_CONDENSE_QUESTIONS,
    history_text,
)

EARLIER = ["What is Firebase?", "What is Cloud Run?", "How do I deploy to Cloud Run?"]


def test_the_most_recent_questions_come_first_and_read_in_order():
    assert DEFAULT_CONDENSE_QUESTIONS == 3
    assert condense_question(EARLIER, "And its quotas?") == (
        "What is Firebase? What is Cloud Run? How do I deploy to Cloud Run? And its quotas?"
    )
    assert condense_question([*EARLIER, "Why?"], "Its quotas?") == (
        "What is Cloud Run? How do I deploy to Cloud Run? Why? Its quotas?"
    )


@pytest.mark.parametrize(
    ("max_questions", "expected"),
    [
        (0, "And its quotas?"),
        (1, "How do I deploy to Cloud Run? And its quotas?"),
        (2, "What is Cloud Run? How do I deploy to Cloud Run? And its quotas?"),
        (4, "What is Firebase? What is Cloud Run? How do I deploy to Cloud Run? And its quotas?"),
    ],
)
def test_at_most_max_questions_earlier_questions(max_questions, expected):
    assert condense_question(EARLIER, "And its quotas?", max_questions=max_questions) == expected


def test_empty_questions_do_not_count():
    assert condense_question(["a"] * 5, "b", max_questions=4) == "a a a a b"
    assert condense_question(["a", "", " ", "b"], "c", max_questions=2) == "a b c"


def test_the_query_limit_leaves_out_the_oldest_questions():
    follow_up = "Its quotas?"  # 11 characters
    recent = "How do I deploy to Cloud Run?"  # 29 characters
    exact = len(recent) + 1 + len(follow_up)
    assert condense_question(EARLIER, follow_up, max_chars=exact) == f"{recent} {follow_up}"
    assert condense_question(EARLIER, follow_up, max_chars=exact - 1) == follow_up
    # A question that does not fit ends the history: no older one jumps the queue.
    assert condense_question(["Hi?", "x" * 600], follow_up) == follow_up
    # The default limit is the API's query limit, 500 characters.
    assert len(condense_question(["q" * 240, "r" * 240], "s" * 18)) == 500
    assert condense_question(["q" * 240, "r" * 240], "s" * 19) == "r" * 240 + " " + "s" * 19


def test_whitespace_is_collapsed_and_the_follow_up_trimmed():
    assert condense_question(["  What   is\tFirebase? ", "", "   "], " Its quotas? ") == (
        "What is Firebase? Its quotas?"
    )
    assert condense_question(["What\n is  it?"], "Why?") == "What is it? Why?"
    assert condense_question([], "  Why?  ") == "Why?"


@pytest.mark.parametrize("follow_up", ["", "  ", "\n"])
def test_an_empty_follow_up_is_given_back_for_the_query_check_to_name(follow_up):
    assert condense_question(EARLIER, follow_up) == follow_up


def test_a_follow_up_longer_than_the_limit_is_given_alone():
    long = "x" * 600
    assert condense_question(EARLIER, long) == long


@pytest.mark.parametrize(
    ("arguments", "field", "words"),
    [
        ({"max_chars": 0}, "max_chars", "max_chars must be >= 1, got 0"),
        ({"max_chars": "500"}, "max_chars", "must be an integer, got str"),
        ({"max_questions": -1}, "max_questions", "max_questions must be >= 0, got -1"),
        ({"max_questions": True}, "max_questions", "must be an integer, got bool"),
    ],
)
def test_the_limits_are_checked(arguments, field, words):
    with pytest.raises(InputError, match=words) as info:
        condense_question(EARLIER, "q", **arguments)
    assert (info.value.field, info.value.limit) == (field, None)


def test_the_smallest_limits_are_accepted():
    assert condense_question(EARLIER, "q", max_chars=1) == "q"
    assert condense_question(EARLIER, "q", max_questions=0) == "q"


def test_the_language_model_prompt_and_its_history():
    assert history_text([("user", "What is Firebase?"), ("assistant", "An app platform.")]) == (
        "user: What is Firebase?\nassistant: An app platform."
    )
    assert history_text([]) == ""
    assert history_text(iter([("user", "Hi")])) == "user: Hi"
    prompt = CONDENSE_QUESTION_TEMPLATE.format(chat_history="user: Hi", question="Why?")
    assert prompt.startswith("Given a conversation (between a user and an assistant)")
    assert "<Chat History>\nuser: Hi\n\n<Follow Up Message>\nWhy?\n\n" in prompt
    assert prompt.endswith("<Standalone question>\n")

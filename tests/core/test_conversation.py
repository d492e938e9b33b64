"""Condensing a follow-up with the earlier questions (``grounding_core.conversation``): the
query-concatenation baseline, its limits and the LLM prompt's history."""

import pytest

from grounding_core import (
    CONDENSE_QUESTION_TEMPLATE,
    DEFAULT_CONDENSE_QUESTIONS,
    InputError,
    condense_question,
    history_text,
)

EARLIER = ["What is Firebase?", "What is Cloud Run?", "How do I deploy to Cloud Run?"]


def test_the_most_recent_questions_come_first_and_read_in_order():
    assert DEFAULT_CONDENSE_QUESTIONS == 3
    assert condense_question(EARLIER, "And its quotas?") == (
        "What is Firebase? What is Cloud Run? How do I deploy to Cloud Run? And its quotas?"
    )
    assert condense_question(EARLIER, "And its quotas?", max_questions=2) == (
        "What is Cloud Run? How do I deploy to Cloud Run? And its quotas?"
    )
    assert condense_question(EARLIER, "And its quotas?", max_questions=0) == "And its quotas?"
    assert condense_question([*EARLIER, "Why?"], "Its quotas?") == (
        "What is Cloud Run? How do I deploy to Cloud Run? Why? Its quotas?"
    )


def test_the_query_limit_leaves_out_the_oldest_questions():
    follow_up = "Its quotas?"  # 11 characters
    recent = "How do I deploy to Cloud Run?"  # 29 characters
    exact = len(recent) + 1 + len(follow_up)
    assert condense_question(EARLIER, follow_up, max_chars=exact) == f"{recent} {follow_up}"
    assert condense_question(EARLIER, follow_up, max_chars=exact - 1) == follow_up
    # A question that does not fit ends the history: no older one jumps the queue.
    assert condense_question(["Hi?", "x" * 600], follow_up) == follow_up
    assert len(condense_question(["q" * 240, "r" * 240], "s" * 18)) == 500
    assert condense_question(["q" * 240, "r" * 240], "s" * 19) == "r" * 240 + " " + "s" * 19


def test_whitespace_and_empty_turns():
    assert condense_question(["  What   is\tFirebase? ", "", "   "], " Its quotas? ") == (
        "What is Firebase? Its quotas?"
    )
    assert condense_question(["What\n is  it?"], "Why?") == "What is it? Why?"
    assert condense_question([], "  Why?  ") == "Why?"
    assert condense_question(EARLIER, "  ") == "  "  # the query check names the empty query
    assert condense_question(["a"] * 5, "b", max_questions=4) == "a a a a b"


def test_the_limits_are_checked():
    with pytest.raises(InputError, match="max_chars must be >= 1, got 0"):
        condense_question(EARLIER, "q", max_chars=0)
    with pytest.raises(InputError, match="max_questions must be >= 0, got -1"):
        condense_question(EARLIER, "q", max_questions=-1)


def test_the_llm_prompt_and_its_history():
    assert history_text([("user", "What is Firebase?"), ("assistant", "An app platform.")]) == (
        "user: What is Firebase?\nassistant: An app platform."
    )
    assert history_text([]) == ""
    prompt = CONDENSE_QUESTION_TEMPLATE.format(chat_history="user: Hi", question="Why?")
    assert "<Chat History>\nuser: Hi\n\n<Follow Up Message>\nWhy?\n\n" in prompt
    assert prompt.endswith("<Standalone question>\n")

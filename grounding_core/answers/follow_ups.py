"""``condense_question``: follow-up questions for an API without sessions (the Developer
Knowledge API): a follow-up and the earlier turns become one standalone query.

``condense_question`` is the deterministic default, the query-concatenation baseline of
conversational search: the earlier user questions, the most recent first and at most
``max_questions`` of them, are joined with the follow-up in the order they were asked, as long
as the whole query stays within ``max_chars`` (the API's query limit: the oldest questions are
the ones left out). No word list and no model: "and what about its rate limits?" after a
question about one product searches for that product's words too.

With a language model, ``CONDENSE_QUESTION_TEMPLATE`` (the prompt, whose ``{chat_history}`` is
``history_text`` of the earlier turns) asks it to rewrite the follow-up as a standalone
question; both adapters use it.

>>> condense_question(["How do I create a Cloud Storage bucket?"], "And its rate limits?")
'How do I create a Cloud Storage bucket? And its rate limits?'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from grounding_core._checks import check_count
from grounding_core.search.specs import MAX_DEVELOPER_KNOWLEDGE_TEXT

# How many earlier questions a follow-up is joined with unless told.
DEFAULT_CONDENSE_QUESTIONS = 3

CONDENSE_QUESTION_TEMPLATE = (
    "Given a conversation (between a user and an assistant) and a follow-up message from the "
    "user, rewrite the message as a standalone question that keeps all relevant context from "
    "the conversation. Reply with the question only.\n\n"
    "<Chat History>\n{chat_history}\n\n"
    "<Follow Up Message>\n{question}\n\n"
    "<Standalone question>\n"
)


def condense_question(
    history: Sequence[str],
    follow_up: str,
    *,
    max_chars: int = MAX_DEVELOPER_KNOWLEDGE_TEXT,
    max_questions: int = DEFAULT_CONDENSE_QUESTIONS,
) -> str:
    """``follow_up`` preceded by the most recent of the earlier user questions ``history``
    (oldest first), at most ``max_questions`` of them, within ``max_chars`` characters in all;
    a question that does not fit is left out with every older one. ``follow_up`` alone when
    there is no history (or it is already too long: the API then says so).

    >>> condense_question(["What is Firebase?", "What is Cloud Run?"], "Its quotas?",
    ...                   max_questions=1)
    'What is Cloud Run? Its quotas?'
    >>> condense_question(["What is Firebase?", "What is Cloud Run?"], "Its quotas?",
    ...                   max_chars=35)
    'What is Cloud Run? Its quotas?'
    """
    check_count("max_chars", max_chars, minimum=1)
    check_count("max_questions", max_questions, minimum=0)
    query = follow_up.strip()
    if not query:
        return follow_up  # nothing to follow up: the query check names the empty query
    kept: list[str] = []
    room = max_chars - len(query)
    for question in _recent_questions(history, max_questions):
        if len(question) + 1 > room:
            break
        kept.append(question)
        room -= len(question) + 1
    return " ".join([*reversed(kept), query])


def _recent_questions(history: Sequence[str], limit: int) -> Iterable[str]:
    """The non-empty questions of ``history``, the most recent first, at most ``limit``."""
    count = 0
    for question in reversed(history):
        if count == limit:
            return
        text = " ".join(question.split())
        if text:
            count += 1
            yield text


def history_text(turns: Iterable[tuple[str, str]]) -> str:
    """Earlier turns as ``role: text`` lines, for the ``{chat_history}`` of
    ``CONDENSE_QUESTION_TEMPLATE``.

    >>> history_text([("user", "What is Firebase?"), ("assistant", "An app platform.")])
    'user: What is Firebase?\\nassistant: An app platform.'
    """
    return "\n".join(f"{role}: {text}" for role, text in turns)

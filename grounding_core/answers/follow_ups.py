"""Follow-up questions for an API without sessions (the Developer Knowledge API): a follow-up
and the earlier turns become one standalone query.

``condense_question`` is the deterministic default (query concatenation, the baseline of
conversational search: no word list, no model). With a language model,
``CONDENSE_QUESTION_TEMPLATE`` (its ``{chat_history}`` is ``history_text`` of the earlier
turns) asks it to rewrite the follow-up as a standalone question.

>>> condense_question(["How do I create a Cloud Storage bucket?"], "And its rate limits?")
'How do I create a Cloud Storage bucket? And its rate limits?'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice

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
    (oldest first), at most ``max_questions`` of them, within ``max_chars`` characters in all
    (the API's query limit): a question that does not fit is left out with every older one (a
    ``follow_up`` too long already is left for the API to refuse)."""
    check_count("max_chars", max_chars, minimum=1)
    check_count("max_questions", max_questions, minimum=0)
    query = follow_up.strip()
    if not query:
        return follow_up  # nothing to follow up: the query check names the empty query
    kept: list[str] = []
    room = max_chars - len(query)
    # The non-empty questions, the most recent first, with their whitespace normalised.
    recent = (text for question in reversed(history) if (text := " ".join(question.split())))
    for question in islice(recent, max_questions):
        if len(question) + 1 > room:
            break
        kept.append(question)
        room -= len(question) + 1
    return " ".join([*reversed(kept), query])


def history_text(turns: Iterable[tuple[str, str]]) -> str:
    """Earlier turns as ``role: text`` lines: ``CONDENSE_QUESTION_TEMPLATE``'s history."""
    return "\n".join(f"{role}: {text}" for role, text in turns)

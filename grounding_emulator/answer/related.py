"""Related questions (``RelatedQuestionsSpec.enable``, ``Answer.related_questions``: "Suggested
related questions"); pure, deterministic.

Google suggests them with a model and does not document how. The emulator's rule: the sections
of the retrieved chunks that the answer does not cite, in retrieval order, each asked about as
"What about {section}?", where the section is the last part of the chunk's heading path (the
document title for a chunk outside any section); sections the answer cites, and repeats
(compared case-insensitively), are skipped; at most ``MAX_RELATED_QUESTIONS``.

>>> related_questions(["Coroutines > The async with statement", "", "Coroutines"],
...                   ["Compound statements", "Compound statements", "Coroutines"], cited={0})
['What about Compound statements?', 'What about Coroutines?']
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

__all__ = ["MAX_RELATED_QUESTIONS", "related_questions"]

MAX_RELATED_QUESTIONS = 3


def _section(heading: str, title: str) -> str:
    return heading.rsplit(" > ", 1)[-1].strip() or title.strip()


def related_questions(
    headings: Sequence[str], titles: Sequence[str], cited: Collection[int]
) -> list[str]:
    """The related questions of the retrieved chunks (``headings`` and their documents'
    ``titles``, in retrieval order), ``cited`` the indexes of the chunks the answer cites."""
    seen = {_section(headings[i], titles[i]).casefold() for i in cited}
    questions: list[str] = []
    for number, (heading, title) in enumerate(zip(headings, titles, strict=True)):
        section = _section(heading, title)
        if number in cited or not section or section.casefold() in seen:
            continue
        seen.add(section.casefold())
        questions.append(f"What about {section}?")
        if len(questions) == MAX_RELATED_QUESTIONS:
            break
    return questions

"""Grounded generation's answer (``GenerateGroundedContent``, *Generate grounded answers with
RAG*): an extractive answer from the request's grounding chunks, judged; pure.

The grounding chunks (inline facts, and the chunks a ``search_source`` found) are indexed as a
throwaway data store, one document per chunk, and the answer engine (``engine.py``) answers the
question from them: the best sentences of the chunks for the question, in reading order, the
question rephrased with the earlier user turns; when no sentence reaches the engine's minimum
relevance, the best ones anyway (a chunk that does not end with a sentence mark is read as
one sentence ended with a full stop) (a model answers from what it is given), and no answer only
when the question shares no word with any chunk. Its text is only ever sentences of the chunks:
never of the system instruction or of the conversation. The answer is then judged with the
server's judge, every grounding chunk a fact (as CheckGrounding does, at its default citation
threshold), so that a ``ScriptedJudge`` scripts the supports and the score.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from grounding_emulator.answer.engine import AnswerParams, generate_answer
from grounding_emulator.corpus.datastore import DataStore
from grounding_emulator.corpus.reading import document_from_mapping
from grounding_emulator.grounding.check import CheckedAnswer, check_answer
from grounding_emulator.grounding.judge import Claim, Fact, Judge, Verdict
from grounding_emulator.limits import MAX_PAGE_SIZE

_SENTENCE_END = re.compile(r"[.!?。！？؟।][\"')\]»”’]*$")

__all__ = ["GroundedAnswer", "GroundingChunk", "grounded_answer"]


@dataclass(frozen=True, slots=True)
class GroundingChunk:
    """A chunk the answer may be drawn from: an inline fact or a chunk a search found.
    ``source`` is ``FactChunk.source`` (a fact's index, a search chunk's name); ``attributes``
    its ``source_metadata``; ``kind`` the ``RetrievalMetadata.Source`` it came from."""

    text: str
    source: str
    kind: str
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class GroundedAnswer:
    """The answer: its text, the parts a stream sends (they join to ``text``), and the judge's
    verdicts on its claims against ``chunks`` (``None`` for an empty answer)."""

    text: str
    parts: tuple[str, ...]
    checked: CheckedAnswer | None
    chunks: tuple[GroundingChunk, ...]


def _unjudged(
    claims: Sequence[Claim], facts: Sequence[Fact], citation_threshold: float
) -> list[Verdict]:
    """The answer engine's own check is not the one reported (``grounded_answer`` judges the
    answer against every chunk): asking the server's judge twice would consume a scripted
    check meant for the reported one."""
    return [Verdict.not_checked() for _ in claims]


def _sentence(text: str) -> str:
    """``text``, ended with a full stop when it ends without a sentence mark: a fact is a
    statement ("The BigQuery documentation can be found at https://..."), and the answer
    engine takes only sentences."""
    text = text.rstrip()
    return text if _SENTENCE_END.search(text) else text + "."


def _chunk_store(chunks: Sequence[GroundingChunk]) -> DataStore | None:
    sources = [
        document_from_mapping(
            {
                "id": f"g{number}",
                "content": _sentence(chunk.text),
                "title": chunk.attributes.get("title", ""),
                "mime_type": "text/plain",
            },
            where=f"grounding chunk {number}",
            number=number,
        )
        for number, chunk in enumerate(chunks)
        if chunk.text.strip()
    ]
    return DataStore.build("grounding-chunks", sources) if sources else None


def grounded_answer(
    question: str,
    history: Sequence[str],
    chunks: Sequence[GroundingChunk],
    judge: Judge,
) -> GroundedAnswer:
    """The answer to ``question`` (after the earlier user turns ``history``, oldest first) from
    ``chunks``, judged by ``judge`` (module docstring)."""
    store = _chunk_store(chunks)
    if store is None:
        return GroundedAnswer("", (), None, tuple(chunks))
    params = AnswerParams(
        query=question,
        max_return_results=min(len(chunks), MAX_PAGE_SIZE),
        history=tuple(history),
        query_field="contents",
    )
    answer = generate_answer(store, params, _unjudged)
    if not answer.text:  # a model answers from what it is given: the best sentences, then
        params = replace(params, ignore_low_relevant_content=False)
        answer = generate_answer(store, params, _unjudged)
    if not answer.text:
        return GroundedAnswer("", (), None, tuple(chunks))
    facts = [Fact(chunk.text, dict(chunk.attributes)) for chunk in chunks]
    checked = check_answer(answer.text, facts, judge)
    return GroundedAnswer(answer.text, answer.parts, checked, tuple(chunks))

"""The search engine's retrieval evaluation set over the built-in corpus (``retrieval_eval.jsonl``,
shipped with this package), its metrics (``quality``) and the floors each search mode must keep
(``floors``)."""

from grounding_emulator.search.eval.floors import FLOORS, RERANKED_CHUNKS, Floor
from grounding_emulator.search.eval.quality import (
    EVAL_FILE,
    SPLITS,
    Question,
    Scores,
    distinct_documents,
    evaluate,
    load_questions,
    ranked_documents,
    score_rankings,
)

__all__ = [
    "EVAL_FILE",
    "FLOORS",
    "RERANKED_CHUNKS",
    "SPLITS",
    "Floor",
    "Question",
    "Scores",
    "distinct_documents",
    "evaluate",
    "load_questions",
    "ranked_documents",
    "score_rankings",
]

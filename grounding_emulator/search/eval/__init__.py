"""The search engine's retrieval evaluation set over the built-in corpus (``retrieval_eval.jsonl``,
shipped with this package), its metrics (``quality``) and the floors each search mode must keep
(``floors``)."""

from grounding_emulator.search.eval.floors import FLOORS, Floor
from grounding_emulator.search.eval.quality import (
    EVAL_FILE,
    SPLITS,
    Question,
    Scores,
    evaluate,
    load_questions,
    ranked_documents,
)

__all__ = [
    "EVAL_FILE",
    "FLOORS",
    "SPLITS",
    "Floor",
    "Question",
    "Scores",
    "evaluate",
    "load_questions",
    "ranked_documents",
]

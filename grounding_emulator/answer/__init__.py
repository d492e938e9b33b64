"""AnswerQuery: the pure extractive answer engine (``engine``), its sentences and the query
classifier."""

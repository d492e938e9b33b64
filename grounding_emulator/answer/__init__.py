"""AnswerQuery: the pure extractive answer engine (``engine``), its sentences and the query
classifier; Search's summary (``summary``), built as answers are."""

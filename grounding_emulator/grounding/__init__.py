"""CheckGrounding: the request's limits and the flow (``check``), the claim splitter
(``claims``), and the judges that give each claim its verdict (``judge``: the Protocol and its
records; ``lexical``: ``LexicalJudge``, the default; ``scripted``: ``ScriptedJudge``, for
tests)."""

"""CheckGrounding: the request's limits, the claim splitter, and the judge that gives each claim
its verdict (``judge``: the Protocol; ``lexical``: the default judge; ``scripted``: for tests)."""

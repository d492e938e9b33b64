"""The lexical judge: a deterministic multilingual lexical entailment checker.

``judge.py`` holds ``LexicalJudge`` (the emulator's default judge), ``engine.py`` the checker
behind it. Frozen: it is not tuned further. Its quality on held-out splits is measured by
``python -m benchmarks --only grounding`` and held to per-split floors by the tests.
"""

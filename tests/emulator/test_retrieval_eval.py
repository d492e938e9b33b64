"""The retrieval evaluation set, run on the built-in corpus in whatever search mode is installed
(BM25, or hybrid with the ``semantic`` extra): each mode must keep its floor.

The set, its metrics and the floors ship with the search engine
(``grounding_emulator.search.eval``); the floors sit a little under the measured values
(``python -m benchmarks --only retrieval`` prints them), so that a regression fails here and
noise does not.
"""

from __future__ import annotations

import pytest

from grounding_emulator.search.eval import (
    FLOORS,
    RERANKED_CHUNKS,
    evaluate,
    load_questions,
    ranked_documents,
)


def test_eval_set_is_labeled_and_mostly_paraphrased():
    questions = load_questions()
    assert len(questions) >= 60
    assert len({q.id for q in questions}) == len(questions)
    assert sum(q.paraphrased for q in questions) > 0.8 * len(questions)
    assert {q.split for q in questions} == {"design", "heldout", "heldout2", "heldout3"}
    held_out = [q for q in questions if q.split != "design"]
    assert len(held_out) >= len(questions) // 2
    assert len([q for q in questions if q.split == "heldout2"]) >= 30
    assert len([q for q in questions if q.split == "heldout3"]) >= 30
    assert all(q.relevant for q in questions)


def test_every_label_names_a_builtin_document(emulator):
    snapshot = emulator.store.get("python-docs")
    ids = {d.id for d in snapshot.documents}
    assert {d for q in load_questions() for d in q.relevant} <= ids


def test_retrieval_quality_keeps_its_floor(emulator):
    snapshot = emulator.store.get("python-docs")
    mode = "bm25" if snapshot.semantic is None else "hybrid"
    scores = evaluate(snapshot, load_questions())
    floor = FLOORS[mode]
    assert scores.count == len(load_questions())
    assert scores.recall_at_5 >= floor.recall_at_5, (mode, scores)
    assert scores.mrr_at_10 >= floor.mrr_at_10, (mode, scores)


def test_reranked_quality_keeps_its_floor(emulator):
    snapshot = emulator.store.get("python-docs")
    mode = "bm25" if snapshot.semantic is None else "hybrid"
    questions = load_questions()
    scores = evaluate(snapshot, questions, chunks=RERANKED_CHUNKS, rerank_top=RERANKED_CHUNKS)
    plain = evaluate(snapshot, questions, chunks=RERANKED_CHUNKS)
    assert scores != plain  # the order changed
    floor = FLOORS[f"{mode} reranked"]
    assert scores.recall_at_5 >= floor.recall_at_5, (mode, scores)
    assert scores.mrr_at_10 >= floor.mrr_at_10, (mode, scores)


@pytest.mark.parametrize(
    ("query", "document"),
    [("for statement", "for"), ("while loop", "while"), ("try statement", "try")],
)
def test_specific_topics_rank_first(emulator, query, document):
    snapshot = emulator.store.get("python-docs")
    assert ranked_documents(snapshot, query)[0] == document


def test_quality_benchmark_quick_run():
    from benchmarks import bench_retrieval_quality

    rows = bench_retrieval_quality.run(quick=True)
    metrics = {(row.case, row.metric) for row in rows}
    mode = "BM25" if all(row.baseline is None for row in rows) else "hybrid"
    count = len(load_questions())
    assert (f"all ({count} questions)", f"recall@5 ({mode})") in metrics
    assert ("held-out (22 questions)", f"MRR@10 ({mode})") in metrics
    assert ("held-out 2 (46 questions)", f"MRR@10 ({mode})") in metrics
    assert ("held-out 3 (40 questions)", f"MRR@10 ({mode})") in metrics
    assert all(row.value > 0 for row in rows)

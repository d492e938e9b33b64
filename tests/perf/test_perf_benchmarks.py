"""The performance benchmarks run on tiny inputs (``quick=True``) and give sane rows.

Nothing timed is asserted (machines differ); what is checked: each benchmark runs, its rows
hold finite positive measurements with a baseline where a ratio is meant, ``quick`` never
creates a peer virtualenv, and the non-timing results (fields kept, claim spans) are right.
"""

from __future__ import annotations

import math
from typing import get_args, get_type_hints

import pytest
from langchain_core.documents import Document
from llama_index.core.schema import NodeWithScore, TextNode

from benchmarks import (
    bench_agents,
    bench_fanout,
    bench_import_time,
    bench_overhead,
    bench_pathological,
    bench_rerank,
    bench_streaming,
    bench_vs_peer_grounding,
    bench_vs_peer_retrievers,
)
from benchmarks.common import Row
from benchmarks.field_survival import FIELDS, survival
from benchmarks.peer_driver import plain_object
from benchmarks.peer_venvs import PeerEnv
from grounding_core import SourceChunk

MODULES = [
    bench_agents,
    bench_streaming,
    bench_rerank,
    bench_overhead,
    bench_pathological,
    bench_vs_peer_retrievers,
    bench_vs_peer_grounding,
    bench_fanout,
    bench_import_time,
]


@pytest.fixture(scope="module", autouse=True)
def no_peer_virtualenvs():
    def refuse(self):
        raise AssertionError(f"quick=True must not create the {self.name} virtualenv")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PeerEnv, "ensure", refuse)
        yield


def _skipped(row: Row) -> bool:
    return "skipped" in row.case and row.value == 0


@pytest.fixture(scope="module", params=MODULES, ids=lambda m: m.NAME)
def quick_rows(request):
    return request.param.NAME, request.param.run(quick=True)


def test_quick_run_gives_sane_rows(quick_rows):
    name, rows = quick_rows
    assert rows
    for row in rows:
        assert row.benchmark == name
        assert math.isfinite(row.value)
        assert row.value > 0 or _skipped(row), row
        if row.baseline is not None:
            assert math.isfinite(row.baseline)
            assert row.baseline > 0, row


def test_overhead_rows_compare_with_both_floors():
    rows = bench_overhead.run(quick=True)
    baselines = {(r.case, r.metric, r.baseline_name) for r in rows if r.baseline is not None}
    for k in bench_overhead.SIZES:
        for framework, call in (("LangChain", "invoke"), ("LlamaIndex", "retrieve")):
            metric = f"{framework} {call} p50"
            assert (f"k={k} chunks", metric, f"thin {framework}") in baselines
            assert (f"k={k} chunks", metric, "raw search") in baselines


def test_fanout_rows_compare_with_the_raw_client_and_the_framework_floors():
    rows = bench_fanout.run(quick=True)
    for framework in ("LangChain", "LlamaIndex"):
        ratios = {
            r.baseline_name: r
            for r in rows
            if r.case.startswith(f"{framework}: ours") and r.metric.startswith("ratio of ratios")
        }
        assert set(ratios) == {"raw client's ratio", "thin async retriever's ratio"}
        assert ratios["raw client's ratio"].target == bench_fanout.RATIO_TARGET == "<= 1.2x"
        floor = [r for r in rows if r.case.startswith(f"{framework}: thin async retriever")]
        assert [r.metric for r in floor] == ["async gather wall"]


def test_our_retrievers_keep_every_chunk_field():
    rows = bench_vs_peer_retrievers.run(quick=True)
    fields = [r for r in rows if r.metric == "chunk fields kept"]
    assert len(fields) == 2
    assert all(r.value == len(FIELDS) for r in fields), fields
    assert all("peer skipped" in r.case for r in rows if r.metric == "p50 latency")


def test_our_claim_spans_are_all_correct():
    rows = bench_vs_peer_grounding.run(quick=True)
    spans = [r for r in rows if r.metric == "claim spans correct"]
    assert spans
    assert all(r.value == 100 for r in spans)
    assert any("non-ASCII" in r.case for r in spans)


# A chunk's rank signals have no public name (docs/core.md: reached as a field of SourceChunk):
# their class is the type of that field.
RankSignals = get_args(get_type_hints(SourceChunk)["rank_signals"])[0]


def _chunk() -> SourceChunk:
    return SourceChunk(
        name="projects/p/.../documents/d1/chunks/c1",
        content="Chunk text.",
        id="c1",
        document_id="d1",
        document_name="projects/p/.../documents/d1",
        uri="https://example.com/d1",
        title="Doc one",
        struct_data={"lang": "en", "words": 3},
        relevance_score=0.5,
        rank_signals=RankSignals(keyword_similarity_score=1.25),
    )


def test_field_survival_of_a_content_only_document():
    chunk = _chunk()
    objects = [plain_object(Document(page_content=chunk.content, metadata={"lang": "en"}))]
    kept, lost = survival(objects, [chunk])
    assert kept == ["content"]
    assert "struct data" in lost  # one of two struct fields is not enough


def test_field_survival_of_a_full_node():
    chunk = _chunk()
    metadata = {
        "chunk_id": chunk.id,
        "document_id": chunk.document_id,
        "document_name": chunk.document_name,
        "source": chunk.uri,
        "title": chunk.title,
        "struct_data": dict(chunk.struct_data),
        "rank_signals": {"keyword_similarity_score": 1.25},
    }
    node = NodeWithScore(node=TextNode(id_=chunk.name, text=chunk.content, metadata=metadata),
                         score=0.5)  # fmt: skip
    kept, lost = survival([plain_object(node)], [chunk])
    assert kept == list(FIELDS)
    assert lost == []


def test_an_object_without_a_known_chunk_keeps_nothing():
    kept, _ = survival([{"id": "x", "text": "something else", "metadata": {}}], [_chunk()])
    assert kept == []


def test_the_scale_benchmark_sizes_come_from_the_variable(monkeypatch):
    from benchmarks import bench_emulator_scale as scale

    monkeypatch.delenv(scale.SIZES_VARIABLE, raising=False)
    assert scale.sizes(quick=False) == scale.SIZES == (1_000, 10_000, 100_000)
    assert scale.sizes(quick=True) == scale.QUICK_SIZES == (200,)
    monkeypatch.setenv(scale.SIZES_VARIABLE, " 1000,1_000_000 ")
    assert scale.sizes(quick=False) == (1_000, 1_000_000)
    assert scale.sizes(quick=True) == (200,)  # quick ignores it: tests never run 1M


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("1000,,2", "give chunk counts separated by commas"),
        ("a lot", "give chunk counts separated by commas"),
        ("1e6", "give chunk counts separated by commas"),
        ("1000,0", "every chunk count must be positive"),
        ("-5", "every chunk count must be positive"),
    ],
)
def test_bad_scale_benchmark_sizes_are_refused_naming_the_variable(monkeypatch, given, problem):
    from benchmarks import bench_emulator_scale as scale

    monkeypatch.setenv(scale.SIZES_VARIABLE, given)
    with pytest.raises(ValueError, match=problem) as info:
        scale.sizes(quick=False)
    assert f"GROUNDING_BENCH_SCALE_SIZES={given.strip()!r}" in str(info.value)

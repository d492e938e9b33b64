"""``grounding search --summary`` on the session emulator."""

from __future__ import annotations

import json

import pytest

from tests.cli.invoke import run

FALLBACK = "A summary could not be generated for your search query. Here are some search results."


def test_summary_with_citations(capsys, host):
    code, out, _ = run(
        capsys, "search", "東京 首都", "--data-store", "test-docs", "--summary", *host
    )
    assert code == 0
    assert "東京都は日本の首都です。[1]" in out
    assert "北京是中国的首都。[2]" in out
    assert "https://example.jp/tokyo" in out
    assert "results for" not in out  # the summary, not the results table


def test_summary_json(capsys, host):
    code, out, _ = run(
        capsys, "search", "Rockets launch crew", "--data-store", "test-docs", "--summary",
        "--search-mode", "documents", "-k", "3", "--json", *host,
    )  # fmt: skip
    assert code == 0
    summary = json.loads(out)
    assert summary["answer_text"].startswith("Rockets 🚀 launch from Cape Canaveral 🇺🇸")
    second = summary["citations"][1]
    assert summary["answer_text"][second["start"] : second["end"]] == second["text"]
    assert second["byte_start"] == len(summary["citations"][0]["text"].encode()) + 1
    assert summary["references"][0]["uri"] == "https://example.com/rockets"
    assert summary["skipped_reasons"] == []


def test_skipped_summary(capsys, host):
    code, out, _ = run(
        capsys, "search", "zzyzx quux", "--summary", "--json", "--data-store", "python-docs", *host
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["answer_text"] == FALLBACK
    assert summary["skipped_reasons"] == ["OUT_OF_DOMAIN_QUERY_IGNORED"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--api", "developer-knowledge"], "--summary needs Discovery Engine"),
        (["-k", "11", "--search-mode", "documents"], "between 1 and 10 in documents mode"),
        (["-k", "51"], "result_count must be between 1 and 50"),
    ],
)
def test_summary_errors(capsys, host, flags, message):
    code, out, err = run(
        capsys, "search", "lighthouse", "--summary", "--data-store", "test-docs", *flags, *host
    )
    assert code == 2
    assert out == ""
    assert message in err

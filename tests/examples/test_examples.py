"""Every example runs offline and prints what it promises (values, not just "it ran")."""

from __future__ import annotations

import re

CAUGHT = "The with statement was added in Python 1.0."


def test_demo(run_example, tmp_path):
    out = run_example("demo", "--out", str(tmp_path))
    assert re.search(r"Emulator on 127\.0\.0\.1:\d+: python-docs, \d+ documents, \d+ chunks", out)
    sections = [line for line in out.splitlines() if re.match(r"^\d\. ", line)]
    assert sections == [
        "1. Retrieve chunks with DiscoveryEngineRetriever",
        "2. Answer with a RAG chain, the grounding callback attached",
        "3. Catch a made-up claim (this model adds one sentence)",
        "4. HTML report (open it; click a claim to see its sources):",
    ]
    retrieve, honest, inventive, written = re.split(r"\n\d\. ", out)[1:]
    assert retrieve.count("https://docs.python.org/3.") == 3
    assert "compound_stmts.html#with" in retrieve
    # The honest answer: every claim supported.
    assert "Support score 1.00 · passed (minimum 1.00)" in honest
    assert re.search(r"\n(\d) supported · 0 weak · 0 unsupported · 0 not checked\n", honest)
    assert "[unsupported]" not in honest
    # The made-up claim is caught, and the answer fails the check.
    assert re.search(r"Support score 0\.67 · below the minimum 1\.00", inventive)
    assert f"{CAUGHT} [unsupported]" in inventive
    assert f"Unsupported claim caught: {CAUGHT!r}" in inventive
    # The report is written where it says, with the claim highlighted as unsupported.
    path = tmp_path / "grounding-report.html"
    assert written.strip().endswith(str(path))
    page = path.read_text(encoding="utf-8")
    assert page.count('class="gk-claim gk-unsupported"') == 1
    assert f"{CAUGHT}</a>" in page
    assert "Question: How does the with statement work?" in page


def test_langchain_rag(run_example):
    out = run_example("langchain_rag", "How does the with statement work?")
    lines = out.splitlines()
    assert lines[0] == "Question: How does the with statement work?"
    assert 0.0 < float(lines[1].removeprefix("Support score: ")) < 1.0
    assert f"{CAUGHT} **[unsupported]**" in out
    assert "**Sources**\n\n1. [" in out
    assert out.rstrip().endswith(f"Unsupported claim caught: {CAUGHT!r}")


def test_langchain_callback(run_example):
    out = run_example("langchain_callback")
    lines = out.splitlines()
    assert lines[0] == "on_report called for 2 runs"
    invented = "  unsupported: 'It was designed by Guido van Rossum in 1989.'"
    failed = r" -> support 0\.\d\d \(FAILED\)"  # the default pass mark fails a made-up claim
    assert re.fullmatch(r"How does the with statement work\?" + failed, lines[1])
    assert lines[2] == invented
    assert re.fullmatch(r"What does the yield statement do\?" + failed, lines[3])
    assert lines[4] == invented
    assert re.fullmatch(r"What is a context manager\?" + failed, lines[5])
    assert lines[6] == f"{invented}  [async]"


def test_answer_query_both_apis(run_example):
    out = run_example("answer_query", "What does the yield statement do?")
    question, discovery, developer = out.split("\n\n## ")
    assert question == "Question: What does the yield statement do?"
    for section, name in (
        (discovery, "Discovery Engine answerQuery"),
        (developer, "Developer Knowledge answerQuery"),
    ):
        assert section.startswith(f'{name}\n\nA "yield" statement')
        assert "[1]" in section
        assert '1. [The "yield" statement](https://docs.python.org/3.' in section
        spans = re.findall(r"- chars (\d+)-(\d+) \(bytes (\d+)-(\d+)\) -> (\S+)", section)
        assert len(spans) >= 1
        assert spans[0][:2] == ("0", spans[0][3])  # ASCII: bytes == chars
        assert all(uri.startswith("https://docs.python.org/3.") for *_, uri in spans)


def test_google_cloud_offline(run_example):
    out = run_example("google_cloud", "What", "does", "the", "yield", "statement", "do?")
    cloud, offline = out.split("Offline run (same code, emulator settings):")
    assert "endpoint:        discoveryengine.googleapis.com" in cloud
    assert "application default credentials" in cloud
    assert (
        "search:          projects/my-project/locations/global/collections/default_collection/"
        "dataStores/my-docs/servingConfigs/default_search"
    ) in cloud
    assert re.search(r"endpoint:        127\.0\.0\.1:\d+", offline)
    assert "engines/python-docs-app/servingConfigs/default_search" in offline
    assert "retrieved: https://docs.python.org/3." in offline
    assert 'answer: A "yield" statement' in offline
    assert "support score against the retrieved chunks: 1.00" in offline


def test_google_cloud_regional_configuration(run_example, monkeypatch):
    from examples import google_cloud

    settings = google_cloud.Settings(
        project="acme", location="eu", data_store="kb", engine="kb-app"
    )
    described = google_cloud.describe(settings)
    assert "endpoint:        eu-discoveryengine.googleapis.com" in described
    assert "projects/acme/locations/eu/collections/default_collection/dataStores/kb/" in described


def test_langchain_agent(run_example):
    out = run_example("langchain_agent")
    honest, revised, streamed = re.split(r"^\d\. .*\n", out, flags=re.M)[1:]
    answer = honest.splitlines()[0]
    assert answer.startswith('The "with" statement is used to wrap the execution of a block')
    spans = re.findall(r"^  \[(\d+):(\d+)\] ", honest, flags=re.M)
    assert spans == [("0", str(len(answer)))] * 2
    assert "(https://docs.python.org/3.11/reference/compound_stmts.html#with)" in honest
    assert "support 1.00, passed: True, revisions: 0" in honest
    assert "answer: I could not find support for an answer in the retrieved sources." in revised
    assert f"original: {answer} {CAUGHT}" in revised
    assert "passed: False, revisions: 1" in revised
    assert f"  unsupported: {CAUGHT!r}" in revised
    assert int(re.search(r"^(\d+) tokens streamed", streamed, flags=re.M).group(1)) > 10
    assert re.findall(r"^  \[(\d+):(\d+)\] ", streamed, flags=re.M) == spans


def test_llamaindex_agent(run_example):
    lines = run_example("llamaindex_agent").splitlines()
    assert lines[:3] == [
        "tool discovery_engine_search: 3 nodes",
        "checked: support 0.50 -> revise",
        "checked: support 1.00 -> keep",
    ]
    answer = lines[3].removeprefix("answer (1 revision): ")
    assert answer.startswith('The "with" statement is used to wrap the execution of a block')
    assert lines[4] == (
        f'  [0:{len(answer)}] -> The "with" statement '
        "(https://docs.python.org/3.11/reference/compound_stmts.html#with)"
    )
    assert lines[-1] == "passed: True"


def test_langchain_streaming(run_example):
    out = run_example("langchain_streaming")
    checked, answered = re.split(r"^\d\. .*\n", out, flags=re.M)[1:]
    verdicts = re.findall(r"^after (\d+) tokens: (\w+) \[(\d+):(\d+)\] (.*)$", checked, re.M)
    assert [v[1] for v in verdicts] == ["supported", "supported", "unsupported"]
    assert verdicts[-1][4] == repr(CAUGHT)
    total = int(re.search(r"^(\d+) tokens streamed; final report", checked, re.M).group(1))
    # the first sentences were checked while the answer was still streaming
    assert int(verdicts[0][0]) < int(verdicts[1][0]) < total
    assert verdicts[0][2] == "0"
    assert "final report: support 0.67, passed: False" in checked
    parts = re.findall(r"^  part: (.*)$", answered, re.M)
    assert len(parts) == 3
    assert answered.startswith("3 parts streamed, then the citations:")
    cited = re.findall(r"^  cited \[(\d+):(\d+)\] -> \['(.*)'\]$", answered, re.M)
    assert len(cited) == 3
    assert cited[0][0] == "0"
    assert int(cited[0][1]) == len(parts[0])
    assert cited[2][2].endswith("/documents/context-managers/chunks/c1")


def test_langchain_rerank(run_example):
    out = run_example("langchain_rerank")
    lines = out.splitlines()
    assert lines[0] == "Question: How do I catch several exceptions in one handler?"
    assert lines[1] == "Search, first 3 of 20:"
    assert lines[5] == "Reranked, best 3:"
    searched = [re.fullmatch(r"  search (0\.\d\d) · (.+)", line) for line in lines[2:5]]
    reranked = [
        re.fullmatch(r"  rank (0\.\d\d) · search (0\.\d\d) · (.+)", line) for line in lines[6:9]
    ]
    assert all(searched)
    assert all(reranked)
    ranks = [float(m.group(1)) for m in reranked]
    assert ranks == sorted(ranks, reverse=True)
    assert ranks[0] > 0
    assert [float(m.group(1)) for m in searched] == sorted(
        (float(m.group(1)) for m in searched), reverse=True
    )
    # the reranked order is not the search's: a chunk from below the first 3 moved up
    assert [m.group(3) for m in reranked] != [m.group(2) for m in searched]
    assert lines[9] == "async gives the same: True"


def test_grounded_generation_in_both_frameworks_and_geminis_citations(run_example):
    out = run_example("grounded_generation", "How does the with statement work?")
    question, langchain, llamaindex, gemini = out.split("\n\n")
    assert question == "Question: How does the with statement work?"
    with_url = "https://docs.python.org/3.11/reference/compound_stmts.html#with"
    # LangChain: the chain's answer, claims with char and byte spans, each citing its chunks.
    lines = langchain.splitlines()
    assert lines[0] == "1. LangChain: ChatDiscoveryEngineGrounded in a chain"
    assert lines[1].startswith('Answer: The "with" statement is used to wrap the execution')
    assert lines[2] == "Grounding score: 1.00"
    claims = [line for line in lines if line.startswith("- chars ")]
    assert claims[0] == (
        f"- chars 0-150 (bytes 0-150) supported -> {with_url}, "
        "https://docs.python.org/3.11/reference/datamodel.html#context-managers"
    )
    assert all(" supported -> https://docs.python.org/3.11/" in line for line in claims)
    assert re.fullmatch(r"Streamed in \d+ chunks, the same citations: True", lines[-1])
    # LlamaIndex: grounded on the retrieved nodes, and cited.
    lines = llamaindex.splitlines()
    assert lines[0] == "2. LlamaIndex: DiscoveryEngineGroundedLLM in a query engine"
    assert lines[1].startswith('Answer: The "with" statement is used to wrap the execution')
    assert lines[2] == "Passed: True"
    assert lines[3] == f"- chars 0-150 -> {with_url}"
    # Gemini: byte offsets read as string indices cut the wrong text; cite_gemini's are right.
    assert gemini.splitlines() == [
        "3. A Gemini answer's citations made right",
        "Byte offsets read as string indices: '東京は日本の首都です。人口は約1400万人です。'",
        "cite_gemini's span 0-11: '東京は日本の首都です。' -> https://ja.example/tokyo",
    ]

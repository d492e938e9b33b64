"""``grounding search``, ``answer`` and ``check`` on the session emulator (and their errors)."""

from __future__ import annotations

import io
import json
import socket

import google.auth
import pytest
from google.auth.exceptions import DefaultCredentialsError

from grounding_core import (
    DEFAULT_RETRY,
    DEFAULT_SEARCH_K,
    DEFAULT_TIMEOUT,
    DISCOVERYENGINE_EMULATOR_HOST,
    GROUNDING_DATA_STORE,
    DiscoveryEngineTarget,
)
from grounding_core.cli import build_parser, main
from grounding_core.cli.connection import (
    developer_knowledge_connection,
    discovery_engine_connection,
    target,
)
from tests.cli.invoke import run

PARIS = "Paris is the capital of France."
ANSWER = f"{PARIS} The Moon is made of cheese."


def test_search_table(capsys, host):
    code, out, _ = run(
        capsys, "search", "lighthouse keeper 7", "--data-store", "test-docs", "-k", "2", *host
    )
    assert code == 0
    assert "2 results for 'lighthouse keeper 7'" in out
    assert "https://example.com/paging/" in out


def test_search_json_and_the_env_vars(capsys, emulator, monkeypatch):
    # What the export line of `grounding serve` sets.
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, emulator.address)
    monkeypatch.setenv(GROUNDING_DATA_STORE, "python-docs")
    code, out, _ = run(capsys, "search", "assert statement", "--json", "-k", "1")
    assert code == 0
    (chunk,) = json.loads(out)
    assert chunk["uri"].startswith("https://docs.python.org/3.")
    assert chunk["uri"].endswith("simple_stmts.html#assert")


def test_search_developer_knowledge(capsys, host):
    code, out, _ = run(
        capsys, "search", "yield statement", "--api", "developer-knowledge", "--json", *host
    )
    assert code == 0
    chunks = json.loads(out)
    assert len(chunks) == DEFAULT_SEARCH_K == 4  # -k defaults to the core's one search default
    assert any(c["uri"].endswith("simple_stmts.html#yield") for c in chunks)


def test_answer_with_citations(capsys, host, tmp_path):
    html = tmp_path / "out" / "answer.html"
    code, out, _ = run(
        capsys,
        "answer",
        "What does the yield statement do?",
        "--engine",
        "python-docs-app",
        "--html",
        str(html),
        *host,
    )
    assert code == 0
    assert out.startswith("Grounding score 1.00\n")
    assert "[1]" in out
    assert "simple_stmts.html#yield" in out
    assert f"HTML report: {html}" in out
    assert 'class="gk-claim gk-supported"' in html.read_text(encoding="utf-8")


def test_answer_markdown_and_json(capsys, host):
    code, out, _ = run(
        capsys, "answer", "What does the yield statement do?", "--markdown",
        "--data-store", "python-docs", *host,
    )  # fmt: skip
    assert code == 0
    assert '**Sources**\n\n1. [The "yield" statement](https://docs.python.org/' in out
    code, out, _ = run(
        capsys, "answer", "What does the yield statement do?", "--json", "--api",
        "developer-knowledge", *host,
    )  # fmt: skip
    assert code == 0
    answer = json.loads(out)
    assert answer["answer_text"].startswith('A "yield" statement')
    assert answer["citations"][0]["start"] == 0


def test_check_with_facts(capsys, host):
    code, out, _ = run(capsys, "check", ANSWER, "--fact", PARIS, *host)
    assert code == 1  # an unsupported claim fails the default pass mark
    assert out.splitlines()[:2] == [
        "Support score 0.50 · below the minimum 1.00",
        "1 supported · 0 weak · 1 unsupported · 0 not checked",
    ]
    assert f"{PARIS}[1] The Moon is made of cheese. [unsupported]" in out
    assert "  ✘ The Moon is made of cheese." in out
    assert "[1] fact 1" in out


def test_check_json_from_stdin(capsys, host, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(ANSWER + "\n"))
    code, out, _ = run(capsys, "check", "--fact", PARIS, "--json", *host)
    assert code == 1  # the answer fails the pass mark
    report = json.loads(out)
    assert report["answer"] == ANSWER
    assert report["support_score"] == 0.5
    assert report["passed"] is False
    assert [c["status"] for c in report["claims"]] == ["supported", "unsupported"]
    assert report["claims"][0]["source_indices"] == [0]
    assert report["sources"] == [{"text": PARIS, "metadata": {"title": "fact 1"}}]


def test_check_fact_files(capsys, host, tmp_path):
    (tmp_path / "facts.jsonl").write_text(
        json.dumps({"text": PARIS, "title": "Paris", "source": "https://example.org/paris"}) + "\n",
        encoding="utf-8",
    )
    (tmp_path / "facts.json").write_text(json.dumps(["The Moon orbits the Earth."]))
    (tmp_path / "notes.txt").write_text("The Moon is made of rock.\n\nCheese is food.\n")
    (tmp_path / "answer.txt").write_text(ANSWER, encoding="utf-8")
    code, out, _ = run(
        capsys,
        "check",
        "--answer-file",
        str(tmp_path / "answer.txt"),
        "--facts",
        str(tmp_path / "facts.jsonl"),
        "--facts",
        str(tmp_path / "facts.json"),
        "--facts-file",
        str(tmp_path / "notes.txt"),
        "--json",
        *host,
    )
    assert code == 1  # "The Moon is made of cheese." is unsupported
    report = json.loads(out)
    titles = [s["metadata"].get("title") for s in report["sources"]]
    assert titles == ["Paris", None, "notes.txt ¶1", "notes.txt ¶2"]
    assert report["sources"][2]["metadata"]["source"] == (tmp_path / "notes.txt").as_uri()
    assert report["claims"][0]["source_indices"] == [0]


def test_check_facts_from_a_search_with_an_html_report(capsys, host, tmp_path):
    answer = (
        'The "with" statement is used to wrap the execution of a block with methods defined by '
        "a context manager. The with statement was added in Python 1.0."
    )
    html = tmp_path / "report.html"
    code, out, _ = run(
        capsys, "check", answer, "--search", "with statement", "-k", "3", "--html", str(html),
        "--fail-under", "0.9", "--data-store", "python-docs", *host,
    )  # fmt: skip
    assert code == 1  # below --fail-under
    assert "Support score 0.50 · below the minimum 0.90" in out
    assert "compound_stmts.html#with" in out
    assert f"HTML report: {html}" in out
    page = html.read_text(encoding="utf-8")
    assert page.count('class="gk-claim ') == 2
    assert 'class="gk-claim gk-unsupported"' in page
    assert "Question: with statement" in page


def test_check_markdown_passes_fail_under(capsys, host):
    code, out, _ = run(
        capsys, "check", PARIS, "--fact", PARIS, "--markdown", "--fail-under", "0.5", *host
    )
    assert code == 0
    assert out == f"{PARIS}[1]\n\n**Sources**\n\n1. fact 1\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["check", ANSWER],
            "no facts to check against: give --fact TEXT, --facts FILE or --search",
        ),
        (["check", "--fact", "x"], "the answer to check is empty"),
        (["check", "x", "--fact", "y", "--answer-file", "a.txt"], "give the answer once"),
        (["check", "x", "--facts", "missing.jsonl"], "--facts missing.jsonl: no such file or"),
        (["check", "--answer-file", "gone.txt", "--fact", "y"], "--answer-file gone.txt: no such"),
        (["search", "x", "--data-store", "nope"], "data store 'nope' not found"),
        (["search", "x", "--timeout", "0"], "timeout must be > 0 seconds"),
    ],
)
def test_errors_are_one_line_on_stderr(capsys, host, monkeypatch, argv, message):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code, out, err = run(capsys, *argv, *host)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert err.count("\n") == 1
    assert message in err


def test_bad_jsonl_names_the_flag_the_file_and_the_line(capsys, host, tmp_path):
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"text": "ok"}\n{not json}\n', encoding="utf-8")
    code, _, err = run(capsys, "check", "x", "--facts", str(facts), *host)
    assert code == 2
    assert err == (
        f"error: --facts {facts}, line 2, column 2: not JSON (Expecting property name enclosed "
        "in double quotes)\n"
    )


def test_json_scores_are_written_as_the_float32_they_are(capsys, host):
    # Google's scores are 32-bit floats: 2/3 arrives as 0.6666666865348816 in a double.
    answer = f"{PARIS} Rome is the capital of Italy. The Moon is made of cheese."
    facts = ["--fact", PARIS, "--fact", "Rome is the capital of Italy."]
    code, out, _ = run(capsys, "check", answer, *facts, "--json", *host)
    assert code == 1
    assert '"support_score": 0.6666667,' in out
    assert json.loads(out)["support_score"] == 0.6666667


def test_a_stopped_emulator_is_one_clear_error(capsys):
    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, _, err = run(
        capsys, "search", "x", "--data-store", "kb", "--emulator-host", f"127.0.0.1:{port}"
    )
    assert code == 2
    assert f"error: no emulator answers on 127.0.0.1:{port}" in err
    assert "start one with `grounding serve`" in err
    assert err.count("\n") == 1


def test_google_cloud_needs_a_data_store_and_credentials(capsys, monkeypatch):
    code, _, err = run(capsys, "search", "x", "--project", "p")
    assert code == 2
    assert "give --data-store ID or --engine ID" in err

    def no_credentials(*args, **kwargs):
        raise DefaultCredentialsError("Your default credentials were not found.")

    monkeypatch.setattr(google.auth, "default", no_credentials)
    code, _, err = run(capsys, "search", "x", "--project", "p", "--data-store", "d")
    assert code == 2
    assert err.startswith("error: no Google Cloud credentials")
    assert err.count("\n") == 1


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("grounding 0.")
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    help_text = capsys.readouterr().out
    flags = "--emulator-host --project --location --data-store --engine --search --facts --html"
    for flag in [*flags.split(), "--json", "--fail-under", "--weak-below"]:
        assert flag in help_text


def test_search_mode_flag_and_its_old_name(capsys, host):
    for flag in ("--search-mode", "--mode"):
        code, out, _ = run(
            capsys, "search", "Cape Canaveral", "--data-store", "test-docs", flag, "documents",
            "-k", "1", "--json", *host,
        )  # fmt: skip
        assert code == 0
        (chunk,) = json.loads(out)
        assert chunk["document_id"] == "emoji"
        assert chunk["name"] == chunk["document_name"]  # a document, not a chunk


def test_connections_come_from_the_core_with_its_defaults(emulator, monkeypatch):
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GCLOUD_PROJECT", raising=False)
    parser = build_parser()
    args = parser.parse_args(
        ["search", "q", "--emulator-host", emulator.address, "--data-store", "test-docs"]
    )
    connection = discovery_engine_connection(args)
    assert connection.call_options.timeout == DEFAULT_TIMEOUT
    assert connection.call_options.retry == DEFAULT_RETRY
    assert connection.project == "emulator-project"  # resolved by the core, as for the adapters
    assert connection.target(**target(args)) == DiscoveryEngineTarget(
        project="emulator-project", data_store="test-docs"
    )
    args = parser.parse_args(
        ["answer", "q", "--emulator-host", emulator.address, "--timeout", "4", "--no-retry",
         "--project", "p", "--location", "eu", "--engine", "app", "--collection", "c"]
    )  # fmt: skip
    connection = discovery_engine_connection(args)
    assert (connection.call_options.timeout, connection.call_options.retry) == (4.0, None)
    assert (connection.project, connection.location) == ("p", "eu")
    assert connection.target(**target(args)).serving_config_path == (
        "projects/p/locations/eu/collections/c/engines/app/servingConfigs/default_search"
    )
    developer = developer_knowledge_connection(args)
    assert (developer.call_options.timeout, developer.call_options.retry) == (4.0, None)
    assert developer.endpoint == emulator.address


@pytest.mark.parametrize(
    ("grace", "shown"), [("-1", "-1"), ("inf", "inf"), ("nan", "nan"), ("soon", "'soon'")]
)
def test_a_bad_grace_is_refused_before_serving(capsys, grace, shown):
    with pytest.raises(SystemExit) as info:
        main(["serve", "--grace", grace])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(
        "grounding serve: error: argument --grace: expected seconds"
    )
    assert err.splitlines()[-1].endswith(f"got {shown}")

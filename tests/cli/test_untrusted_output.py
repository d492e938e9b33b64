"""What the CLI prints from the service and from users' files, on a colour terminal: escape
sequences and rich markup in answers, titles, URIs and errors are shown, never obeyed.

``FORCE_COLOR`` makes rich write colours into the captured output, as on a terminal: its own
colour codes are the only escape sequences allowed (``tests.core.test_terminal_hostile``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from grounding_emulator import CorpusStore, EmulatorServer
from tests.cli.invoke import run
from tests.conftest import write_corpus
from tests.core.hostile_text import CLEAR, OBEYED, OSC_TITLE, PWNED, assert_inert

SHOWN_OSC = "\u241b]0;OWNED-WINDOW\u2407"
SHOWN_CLEAR = "\u241b[2J\u241b[H"
HOSTILE_TITLE = f"Lamps{OSC_TITLE} [bold]markup[/bold] :warning:"
HOSTILE_URI = f"https://lamps.example/{CLEAR}"
CONTENT = (
    f"# Lamps\n\nThe lighthouse lamp{OSC_TITLE} burns oil{CLEAR} every night. "
    "The keeper trims the \x9b31m wick \u202eevery\u202c evening."
)


@pytest.fixture(autouse=True)
def colour_terminal(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")


@pytest.fixture(scope="module")
def hostile_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """An emulator whose only data store, ``hostile``, has a document with hostile text."""
    record = {"id": "lamps", "title": HOSTILE_TITLE, "uri": HOSTILE_URI, "content": CONTENT}
    corpus = write_corpus(tmp_path_factory.mktemp("hostile") / "hostile.jsonl", [record])
    store = CorpusStore()
    store.ingest("hostile", corpus)
    with EmulatorServer(store) as server:
        yield ["--emulator-host", server.address, "--data-store", "hostile"]


@pytest.fixture
def facts(tmp_path: Path) -> Path:
    path = tmp_path / "facts.jsonl"
    fact = {"text": "The lighthouse lamp burns oil.", "title": HOSTILE_TITLE, "source": HOSTILE_URI}
    path.write_text(json.dumps(fact) + "\n", encoding="utf-8")
    return path


ANSWER = f"The lighthouse lamp burns oil. The keeper{OSC_TITLE}{CLEAR} is \x9b31m \u202ekind."


def test_check_view(capsys, host, facts):
    code, out, err = run(capsys, "check", ANSWER, "--facts", str(facts), *host)
    assert code == 1
    plain = assert_inert(out)
    assert "\x1b[" in out  # a colour terminal: rich's own colours are there
    assert f"burns oil.[1] The keeper{SHOWN_OSC}{SHOWN_CLEAR} is \ufffd31m \ufffdkind." in plain
    assert f"[1] Lamps{SHOWN_OSC} [bold]markup[/bold] :warning:  https://lamps.example/" in plain
    assert err == ""


def test_check_markdown(capsys, host, facts):
    code, out, _ = run(capsys, "check", ANSWER, "--facts", str(facts), "--markdown", *host)
    assert code == 1
    assert "\x1b" not in out  # plain text: no colours, and the input's ESC shown
    assert OBEYED.findall(out) == []
    markdown_osc = "\u241b\\]0;OWNED-WINDOW\u2407"  # "]" escaped for Markdown
    assert f"1. [Lamps{markdown_osc} \\[bold\\]markup\\[/bold\\] :warning:]" in out  # no emoji
    assert "(https://lamps.example/%1B[2J%1B[H)" in out


def test_check_json_keeps_the_values_and_escapes_them(capsys, host, facts):
    code, out, _ = run(capsys, "check", ANSWER, "--facts", str(facts), "--json", *host)
    assert code == 1
    assert OBEYED.findall(out) == []
    assert "\\u009b31m" in out
    assert "\\u202ekind" in out
    value = json.loads(out)
    assert value["answer"] == ANSWER
    assert value["sources"][0]["metadata"]["title"] == HOSTILE_TITLE


def test_search_table(capsys, hostile_host):
    code, out, _ = run(capsys, "search", "lighthouse lamp", *hostile_host)
    assert code == 0
    plain = assert_inert(out)
    assert f"Lamps{SHOWN_OSC} [bold]markup[/bold] :warning:" in plain
    assert f"https://lamps.example/{SHOWN_CLEAR}" in plain
    assert f"lamp{SHOWN_OSC} burns oil{SHOWN_CLEAR} every night" in plain


def test_answer_view_and_markdown(capsys, hostile_host):
    code, out, err = run(capsys, "answer", "What does the lighthouse lamp burn?", *hostile_host)
    assert code == 0
    plain = assert_inert(out)
    assert SHOWN_OSC in plain
    assert plain.endswith("answered from data store hostile\n")
    assert err == ""
    code, out, _ = run(
        capsys, "answer", "What does the lighthouse lamp burn?", "--markdown", *hostile_host
    )
    assert code == 0
    assert "\x1b" not in out
    assert "lamp\u241b\\]0;OWNED-WINDOW\u2407 burns oil" in out


def test_an_error_line_shows_the_sequences(capsys, host, tmp_path):
    missing = tmp_path / f"facts{OSC_TITLE}{CLEAR}[red]x[/red].jsonl"
    code, out, err = run(capsys, "check", "x.", "--facts", str(missing), *host)
    assert code == 2
    assert out == ""
    plain = assert_inert(err)
    assert f"facts{SHOWN_OSC}{SHOWN_CLEAR}[red]x[/red].jsonl" in plain
    assert PWNED not in plain

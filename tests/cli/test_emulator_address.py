"""``--emulator-host`` and the environment variable as users write them (the core's parser)."""

from __future__ import annotations

import json

import pytest

from grounding_core import DISCOVERYENGINE_EMULATOR_HOST
from grounding_core.cli import main


@pytest.fixture(autouse=True)
def no_emulator_env(monkeypatch):
    monkeypatch.delenv(DISCOVERYENGINE_EMULATOR_HOST, raising=False)


@pytest.mark.parametrize("scheme", ["http://", "grpc://"])
def test_a_plaintext_scheme_is_accepted(capsys, emulator, scheme):
    code = main(
        [
            "search",
            "with statement",
            "--emulator-host",
            scheme + emulator.address,
            "--data-store",
            "python-docs",
            "-k",
            "2",
            "--json",
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    assert len(json.loads(out)) == 2


def test_https_is_one_clear_error(capsys, monkeypatch, emulator):
    monkeypatch.setenv(DISCOVERYENGINE_EMULATOR_HOST, f"https://{emulator.address}")
    code = main(["search", "x"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == (
        f"error: ${DISCOVERYENGINE_EMULATOR_HOST} 'https://{emulator.address}' uses https://, "
        f"but the emulator speaks plaintext gRPC: write '{emulator.address}' (or http://...)\n"
    )


def test_a_malformed_flag_names_the_flag(capsys):
    code = main(["search", "x", "--emulator-host", "localhost"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.startswith("error: --emulator-host 'localhost' is not HOST:PORT: ")


PARIS = "Paris is the capital of France."


CHEESE = f"{PARIS} The Moon is made of cheese."


@pytest.mark.parametrize(
    ("answer", "flags", "code", "verdict"),
    [
        (PARIS, [], 0, "Support score 1.00 · passed (minimum 1.00)"),
        (CHEESE, [], 1, "Support score 0.50 · below the minimum 1.00"),
        (CHEESE, ["--fail-under", "0.5"], 0, "Support score 0.50 · passed (minimum 0.50)"),
        (CHEESE, ["--fail-under", "0"], 0, "Support score 0.50 · passed (minimum 0.00)"),
    ],
)
def test_check_exits_1_when_the_answer_fails_the_pass_mark(
    capsys, monkeypatch, emulator, answer, flags, code, verdict
):
    monkeypatch.setenv("COLUMNS", "250")
    status = main(["check", answer, "--fact", PARIS, "--emulator-host", emulator.address, *flags])
    out, _ = capsys.readouterr()
    assert status == code
    assert out.splitlines()[0] == verdict

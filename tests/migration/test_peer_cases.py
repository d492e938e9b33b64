"""The peers' documented examples and tested behaviours (``peer_cases.py``), ported to ours by
changing the import and the class names alone, give what the peers gave on the emulator.

The peers' side was recorded in their own virtualenvs (``peer_results.json``, ``case_outputs``;
``python -m tests.migration.record_peers``); ``test_the_peers_give_the_recorded_results_now``
runs them again where the virtualenvs are built (``benchmarks/peer_venvs.py``), and is skipped
where they are not. Ours runs here, on an emulator serving what the recording's did. Where we
differ on purpose (one document per search result, not per extractive answer; every metadata
key kept), the comparison says how the peer's output maps to ours.
"""

from __future__ import annotations

import importlib
import json
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import groupby
from typing import Any

import grpc
import pytest
from google.auth.credentials import AnonymousCredentials
from langchain_core._api.beta_decorator import LangChainBetaWarning

from tests.documentation.test_doc_blocks import Block, execute
from tests.migration.guide_apps import port
from tests.migration.peer_cases import CASES, Case, case_code
from tests.migration.peer_harness import CLIENTS, plain
from tests.migration.record_peers import ENVS, RECORDING, case_inputs, run_harness

RECORD_COMMAND = "python -m tests.migration.record_peers"


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    recording = json.loads(RECORDING.read_text(encoding="utf-8"))
    return {f: app["case_outputs"] for f, app in recording["apps"].items()}


@contextmanager
def clients_on(address: str) -> Iterator[None]:
    """Google's clients a case builds itself (``GroundedGenerationServiceClient()``) go to the
    emulator at ``address``, as the harness sends the peers'; ours (given a transport) as
    they are."""
    with pytest.MonkeyPatch.context() as patch:
        for module_name, class_name in CLIENTS:
            cls = getattr(importlib.import_module(module_name), class_name)

            def init(self: Any, *args: Any, _cls: Any = cls, _init: Any = cls.__init__, **kw: Any):
                if kw.get("transport") is None:
                    kw.pop("credentials", None)
                    kw.pop("client_options", None)
                    kw["transport"] = _cls.get_transport_class("grpc")(
                        channel=grpc.insecure_channel(address),
                        credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
                    )
                _init(self, *args, **kw)

            patch.setattr(cls, "__init__", init)
        yield


def run_ours(case: Case, address: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, list[str]]:
    """The case ported to ours, on the emulator: its ``result`` (or the exception it raised)
    and the warnings it gave."""
    monkeypatch.setenv("DISCOVERYENGINE_EMULATOR_HOST", address)
    block = Block("tests/migration/peer_cases.py", 1, "", port(case_code(case), case.framework))
    namespace: dict[str, Any] = {"__name__": "ported_case"}
    with clients_on(address), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            execute(block, namespace)
        except Exception as exc:  # what the peer raised is compared with ours
            return exc, [str(w.message) for w in caught]
    # Ours, and langchain-core's for its beta load().
    allowed = {DeprecationWarning, LangChainBetaWarning}
    assert {w.category for w in caught} <= allowed, [str(w) for w in caught]
    return namespace["result"], [str(w.message) for w in caught if w.category is DeprecationWarning]


# -- how each case's output compares ---------------------------------------------------------


def same_documents(ours: list[Any], peer: list[dict[str, Any]]) -> None:
    """One document per search result on both sides: the same texts in the same order, and
    every metadata key of the peer's with the same value (ours has more)."""
    assert peer, "the peer found nothing: the comparison would prove nothing"
    assert [d.page_content for d in ours] == [d["text"] for d in peer]
    for document, recorded in zip(ours, peer, strict=True):
        assert {k: document.metadata[k] for k in recorded["metadata"]} == recorded["metadata"]


def grouped_documents(ours: list[Any], peer: list[dict[str, Any]]) -> None:
    """The peer's one document per extractive answer, ours one per search result: its texts,
    grouped by result in the same order, joined by a blank line, and its metadata keys."""
    groups = [list(g) for _, g in groupby(peer, key=lambda d: d["metadata"]["id"])]
    assert [d.metadata["id"] for d in ours] == [g[0]["metadata"]["id"] for g in groups]
    assert [d.page_content for d in ours] == ["\n\n".join(d["text"] for d in g) for g in groups]
    for document, group in zip(ours, groups, strict=True):
        recorded = group[0]["metadata"]
        assert {k: document.metadata[k] for k in recorded} == recorded


def structured(ours: list[Any], peer: list[dict[str, Any]]) -> None:
    # The text is the peer's JSON (its keys in the order of the struct on the wire, which is
    # not the same each run); its metadata "id" and "name" are our "id", "document_name".
    assert [json.loads(d.page_content) for d in ours] == [json.loads(d["text"]) for d in peer]
    assert [(d.metadata["id"], d.metadata["document_name"]) for d in ours] == [
        (d["metadata"]["id"], d["metadata"]["name"]) for d in peer
    ]


def both_refuse(ours: Any, peer: dict[str, Any]) -> None:
    assert isinstance(ours, Exception)
    assert type(ours).__name__ == peer["error"][0]
    assert "engine_data_type" in str(ours)


def serialized(ours: Any, peer: Any) -> None:
    assert ours == [port(peer[0], "langchain"), peer[1]] == ["DiscoveryEngineRetriever", True]


def same_plain_data(ours: Any, peer: Any) -> None:
    assert plain(ours) == peer


def summarized(ours: list[str], peer: list[str]) -> None:
    # The same summary; Google's summary_text marks citations " [n]", ours "[n]" at the end of
    # each cited segment of its text.
    assert ours[:2] == peer[:2]
    assert re.sub(r"\[\d+\]", "", ours[2]) == re.sub(r" \[\d+\]", "", peer[2])
    assert re.findall(r"\[\d+\]", ours[2])


def reranked(ours: list[Any], peer: list[dict[str, Any]]) -> None:
    # The peer's new documents keep id, relevance_score and the title field; ours every key.
    assert [d.page_content for d in ours] == [d["text"] for d in peer]
    for document, recorded in zip(ours, peer, strict=True):
        metadata = recorded["metadata"]
        assert (document.metadata["id"], document.metadata["source"]) == (
            metadata["id"],
            metadata["source"],
        )
        # Google's scores are floats on the wire; ours are read back at their 2 places.
        assert document.metadata["relevance_score"] == pytest.approx(metadata["relevance_score"])


COMPARE: dict[str, Callable[[Any, Any], None]] = {
    "unstructured-segments": same_documents,
    "unstructured-answers": grouped_documents,
    "structured": structured,
    "website": grouped_documents,
    "blended": both_refuse,
    "multi-turn": grouped_documents,  # one extractive answer per result on the emulator
    "segments-in-shared-names": same_documents,
    "nones-and-defaults": same_documents,
    "boost-spec": same_documents,
    "native-serialization": serialized,
    "summary-tool": summarized,
    "check-grounding": same_plain_data,
    "rerank": reranked,
}


def test_every_case_has_a_comparison():
    assert set(COMPARE) == {case.name for case in CASES}
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("name", ["unstructured-answers", "website"])
def test_the_answers_cases_give_the_peer_several_documents_per_result(recorded, name):
    ids = [d["metadata"]["id"] for d in recorded["langchain"][name]]
    assert len(set(ids)) < len(ids)  # else grouping them would prove nothing


def canonical(outputs: dict[str, Any]) -> dict[str, Any]:
    """A run's outputs, the structured texts read as JSON (their key order varies by run)."""
    texts = [{**d, "text": json.loads(d["text"])} for d in outputs["structured"]]
    return {**outputs, "structured": texts}


def test_the_recording_is_of_these_cases():
    recording = json.loads(RECORDING.read_text(encoding="utf-8"))
    for framework, app in recording["apps"].items():
        assert app["cases"] == case_inputs(framework), (
            f"tests/migration/peer_cases.py changed since the peers' results were recorded: "
            f"run {RECORD_COMMAND}"
        )


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_the_ported_case_gives_the_peers_result(case, recorded, builtin_emulator, monkeypatch):
    ours, warned = run_ours(case, builtin_emulator.address, monkeypatch)
    COMPARE[case.name](ours, recorded[case.framework][case.name])
    # The peer's names are ours too or warn, saying what to write.
    assert all("Write our names" in w or "search_mode" in w for w in warned), warned


@pytest.mark.parametrize("framework", sorted({case.framework for case in CASES}))
def test_the_peers_give_the_recorded_results_now(framework, recorded, builtin_emulator):
    env = ENVS[framework]
    if not env.ready:
        pytest.skip(f"{env.name}'s virtualenv is not built (python -m {RECORD_COMMAND[10:]})")
    command = {"address": builtin_emulator.address, "cases": case_inputs(framework)}
    assert canonical(run_harness(env, command)) == canonical(recorded[framework])

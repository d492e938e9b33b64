"""``CheckGroundingRequest.user_labels`` from the core and both frameworks: validated as the
field doc says (at most 64 labels; keys of 1 to 63 characters starting with a lowercase or
international letter; values of at most 63; lowercase letters, digits, '_' and '-', international
characters allowed), sent with every check, and accepted by the emulator."""

from __future__ import annotations

import pytest

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSpec,
    InputError,
    grounding_config_path,
)
from grounding_core.grounding import check_grounding, check_grounding_request
from grounding_core.specs import MAX_LABEL_CHARS, MAX_USER_LABELS, check_user_labels

from .emulated import PROJECT

CONFIG = grounding_config_path(PROJECT)
PARIS = "Paris is the capital of France."
LABELS = {"team": "search-quality", "env": "", "équipe": "données", "k8s_ns": "a-1", "東京": "値"}


def test_valid_labels_are_kept_read_only():
    given = dict(LABELS)
    spec = GroundingSpec(user_labels=given)
    given["team"] = "changed"
    assert dict(spec.user_labels) == LABELS
    with pytest.raises(TypeError):
        spec.user_labels["team"] = "x"  # type: ignore[index]
    assert GroundingSpec().user_labels == {}
    assert spec == GroundingSpec(user_labels=LABELS)
    many = {f"k{n}": "v" for n in range(MAX_USER_LABELS)}
    assert len(check_user_labels(many)) == MAX_USER_LABELS
    assert check_user_labels({"k" * MAX_LABEL_CHARS: "v" * MAX_LABEL_CHARS})


@pytest.mark.parametrize(
    ("labels", "message", "limit"),
    [
        (["team"], "user_labels must be a mapping of str to str, got list", None),
        (
            {f"k{n}": "" for n in range(65)},
            "user_labels has 65 labels; at most 64 are allowed",
            64,
        ),
        ({"": "x"}, "user_labels: the key '' has 0 characters; a key has 1 to 63", 63),
        ({"k" * 64: "x"}, f"user_labels: the key {'k' * 64!r} has 64 characters", 63),
        ({"k": "v" * 64}, "user_labels['k'] has 64 characters; a value has at most 63", 63),
        (
            {"Team": "x"},
            "the key 'Team' must start with a lowercase letter or an international",
            None,
        ),
        ({"1st": "x"}, "the key '1st' must start with a lowercase letter", None),
        ({"_x": "x"}, "the key '_x' must start with a lowercase letter", None),
        ({"team": "Search"}, "the value 'Search' has 'S': use lowercase letters, digits", None),
        ({"te am": "x"}, "the key 'te am' has ' ': use lowercase letters", None),
        ({"team": "a.b"}, "the value 'a.b' has '.'", None),
        ({"team": 3}, "user_labels['team']: keys and values must be strings, got str -> int", None),
    ],
)
def test_bad_labels_name_the_field_and_the_rule(labels, message, limit):
    with pytest.raises(InputError) as excinfo:
        GroundingSpec(user_labels=labels)
    assert message in str(excinfo.value)
    assert excinfo.value.field == "user_labels"
    assert excinfo.value.limit == limit


def test_the_request_carries_the_labels():
    request, _ = check_grounding_request(CONFIG, PARIS, [PARIS], GroundingSpec(user_labels=LABELS))
    assert dict(request.user_labels) == LABELS
    request, _ = check_grounding_request(CONFIG, PARIS, [PARIS])
    assert dict(request.user_labels) == {}


def test_the_emulator_accepts_documented_labels(de_clients):
    result = check_grounding(de_clients, CONFIG, PARIS, [PARIS], GroundingSpec(user_labels=LABELS))
    assert result.support_score == pytest.approx(1.0)


def test_the_check_component_takes_labels_and_refuses_bad_ones():
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:1")
    check = GroundingCheck.create(connection, user_labels={"team": "docs"})
    assert check.spec == GroundingSpec(user_labels={"team": "docs"})
    assert GroundingCheck.create(connection).spec.user_labels == {}
    with pytest.raises(ConfigurationError, match="the key 'Team' must start with a lowercase"):
        GroundingCheck.create(connection, user_labels={"Team": "docs"})


def test_langchain_checker_sends_its_labels(emulator):
    from langchain_core.documents import Document
    from pydantic import ValidationError

    from langchain_grounding import GroundingChecker

    checker = GroundingChecker(emulator_host=emulator.address, user_labels={"team": "docs"})
    assert checker._check.spec.user_labels == {"team": "docs"}
    out = checker.invoke({"answer": PARIS, "documents": [Document(page_content=PARIS)]})
    assert out["grounding"].result.support_score == pytest.approx(1.0)
    with pytest.raises(ValidationError, match="user_labels has 65 labels"):
        GroundingChecker(
            emulator_host=emulator.address, user_labels={f"k{n}": "" for n in range(65)}
        )


def test_llamaindex_checkers_send_their_labels(emulator):
    from llama_index.core.query_engine import CustomQueryEngine

    from llamaindex_grounding import GroundedQueryEngine, GroundingEvaluator

    class Echo(CustomQueryEngine):
        def custom_query(self, query_str: str) -> str:
            return query_str

    evaluator = GroundingEvaluator(emulator_host=emulator.address, user_labels={"team": "docs"})
    assert evaluator._checker.spec.user_labels == {"team": "docs"}
    result = evaluator.evaluate(response=PARIS, contexts=[PARIS])
    assert result.score == pytest.approx(1.0)
    engine = GroundedQueryEngine(Echo(), emulator_host=emulator.address, user_labels={"a": "b"})
    assert engine._checker.spec.user_labels == {"a": "b"}
    with pytest.raises(ConfigurationError, match="the value 'B' has 'B'"):
        GroundingEvaluator(emulator_host=emulator.address, user_labels={"a": "B"})

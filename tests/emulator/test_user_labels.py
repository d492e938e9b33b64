"""``CheckGroundingRequest.user_labels`` through Google's GroundedGenerationServiceClient: the
emulator checks them as the field doc says, independently of the client library's checks."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions

from tests.emulator.conftest import GROUNDING_CONFIG, ONCE, assert_error

FACT = "The keeper lights the lamp every night."


def check(client, labels):
    return client.check_grounding(
        request={
            "grounding_config": GROUNDING_CONFIG,
            "answer_candidate": FACT,
            "facts": [{"fact_text": FACT}],
            "user_labels": labels,
        },
        **ONCE,
    )


def test_documented_labels_are_accepted(grounding_client):
    labels = {f"k{n}": "v" for n in range(61)}
    labels |= {"équipe": "données-1_x", "k" * 63: "v" * 63, "empty": ""}
    assert len(labels) == 64
    response = check(grounding_client, labels)
    assert response.support_score == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("labels", "fragment"),
    [
        ({f"k{n}": "" for n in range(65)}, "user_labels: 65 labels; at most 64 are allowed"),
        ({"": "x"}, "user_labels: key '' has 0 characters; keys have 1 to 63"),
        ({"k" * 64: "x"}, "has 64 characters; keys have 1 to 63"),
        ({"k": "v" * 64}, "user_labels: the value of 'k' has 64 characters; at most 63"),
        ({"9lives": "x"}, "key '9lives' must start with a lowercase letter or international"),
        ({"Team": "x"}, "key 'Team' must start with a lowercase letter"),
        ({"team": "Docs"}, "'Docs' (label 'team') may hold only lowercase letters, numeric"),
        ({"te am": "x"}, "'te am' (label 'te am') may hold only"),
    ],
)
def test_labels_breaking_a_rule_are_invalid_argument(grounding_client, labels, fragment):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        check(grounding_client, labels)
    assert_error(excinfo, core_exceptions.InvalidArgument, fragment)

"""Text bounds, refused before the work (issue 16): an answer candidate that one long run without
spaces keeps under the token estimate is over the character bound (``MAX_ANSWER_CHARS``, the
emulator's own: Google documents tokens only), refused by the client before sending and by the
emulator with ``INVALID_ARGUMENT`` naming the field and the limit; the edge itself passes.
Through Google's own clients on a real channel, in the table style of ``test_bad_inputs.py``."""

import grpc
import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    DiscoveryEngineConnection,
    GroundingCheck,
    GroundingSource,
    InputError,
)
from grounding_emulator.limits import MAX_ANSWER_CHARS
from tests.reliability.bad_input_table import clear_error_test

CONFIG = "projects/test-project/locations/global/groundingConfigs/default_grounding_config"
ONCE = {"retry": None, "timeout": 60.0}
FACTS = [{"fact_text": "Cloud Run scales to zero."}]
MEGABYTE_RUN = "a" * 1_000_000


def _raw_check(emulator, answer: str, facts=FACTS) -> de.CheckGroundingResponse:
    channel = grpc.insecure_channel(
        emulator.address, options=[("grpc.max_send_message_length", -1)]
    )
    client = de.GroundedGenerationServiceClient(
        transport=de.GroundedGenerationServiceClient.get_transport_class("grpc")(channel=channel)
    )
    request = de.CheckGroundingRequest(
        grounding_config=CONFIG, answer_candidate=answer, facts=facts
    )
    return client.check_grounding(request=request, **ONCE)


def _core_check(emulator, answer: str):
    connection = DiscoveryEngineConnection(
        project_id="test-project", emulator_host=emulator.address
    )
    sources = [GroundingSource(text="Cloud Run scales to zero.")]
    return GroundingCheck(connection).check(answer, sources, sources)


CASES = [
    (
        "emulator: a 1 MB answer without spaces",
        lambda e: _raw_check(e, MEGABYTE_RUN),
        core_exceptions.InvalidArgument,
        ["answer_candidate has 1000000 characters", f"at most {MAX_ANSWER_CHARS}", "in parts"],
    ),
    (
        "emulator: one character over the bound",
        lambda e: _raw_check(e, "a" * (MAX_ANSWER_CHARS + 1)),
        core_exceptions.InvalidArgument,
        [f"has {MAX_ANSWER_CHARS + 1} characters", f"at most {MAX_ANSWER_CHARS}"],
    ),
    (
        "emulator: a 1 MB run of dots is over both bounds, the characters named first",
        lambda e: _raw_check(e, "." * 1_000_000),
        core_exceptions.InvalidArgument,
        ["answer_candidate has 1000000 characters"],
    ),
    (
        "client: a 1 MB answer without spaces",
        lambda e: _core_check(e, MEGABYTE_RUN),
        InputError,
        ["answer_candidate has 1000000 characters", "4096 tokens", f"{MAX_ANSWER_CHARS}"],
    ),
    (
        "client: one character over the bound",
        lambda e: _core_check(e, "a" * (MAX_ANSWER_CHARS + 1)),
        InputError,
        [f"answer_candidate has {MAX_ANSWER_CHARS + 1} characters", "in parts"],
    ),
]


test_bad_input_gets_a_clear_error = clear_error_test(CASES)


def test_the_client_names_field_and_limit(emulator):
    with pytest.raises(InputError) as info:
        _core_check(emulator, MEGABYTE_RUN)
    assert (info.value.field, info.value.limit) == ("answer_candidate", MAX_ANSWER_CHARS)


def test_an_answer_at_the_bound_is_checked(emulator):
    response = _raw_check(emulator, "a" * MAX_ANSWER_CHARS)
    assert [(c.start_pos, c.end_pos) for c in response.claims] == [(0, MAX_ANSWER_CHARS)]
    assert list(response.claims[0].citation_indices) == []
    assert response.support_score == 0.0

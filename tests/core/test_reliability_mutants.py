"""Pins of what each request builder refuses before sending (#16): the field a lone surrogate
is named by, the request a size error names, and the refused emulator address."""

import pytest

from grounding_core import (
    AnswerSpec,
    ChunkSearchSpec,
    ConfigurationError,
    DiscoveryEngineTarget,
    GroundingSource,
    InputError,
    grounding_config_path,
)
from grounding_core.answers import answer_query_request, check_developer_filter
from grounding_core.grounding import check_grounding_request
from grounding_core.render import _line
from grounding_core.search import check_query, search_request
from grounding_core.sessions import _create_request
from grounding_core.settings import emulator_address
from grounding_core.specs import check_user_pseudo_id

TARGET = DiscoveryEngineTarget(project="p", data_store="d")
HUGE = "x" * 11_000_000  # over the 10 MiB request bound


def refused(call, *args):
    with pytest.raises(InputError) as info:
        call(*args)
    return str(info.value), info.value.field, info.value.limit


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: check_query("a\ud800"), "query"),
        (lambda: check_developer_filter("a\ud800"), "filter"),
        (lambda: check_user_pseudo_id("a\ud800"), "user_pseudo_id"),
        (lambda: _create_request(TARGET, "u", "a\ud800"), "display_name"),
    ],
    ids=["query", "developer filter", "user_pseudo_id", "display_name"],
)
def test_a_lone_surrogate_is_named_by_its_field(call, field):
    message, named, _ = refused(call)
    assert named == field
    assert message.startswith(f"{field} holds a lone surrogate (U+D800) at character 1,")


def test_a_user_pseudo_id_that_is_not_a_string():
    assert refused(check_user_pseudo_id, 7) == (
        "user_pseudo_id must be a string, got int",
        "user_pseudo_id",
        128,
    )


@pytest.mark.parametrize(
    ("build", "operation"),
    [
        (lambda: search_request(TARGET, "q", ChunkSearchSpec(filter=HUGE)), "Search"),
        (lambda: answer_query_request(TARGET, "q", AnswerSpec(filter=HUGE)), "AnswerQuery"),
        (
            lambda: check_grounding_request(
                grounding_config_path("p"),
                "An answer.",
                [GroundingSource(text="a", metadata={"t": "x" * 60_000})] * 200,
            ),
            "CheckGrounding",
        ),
    ],
    ids=["Search", "AnswerQuery", "CheckGrounding"],
)
def test_an_oversize_request_is_named(build, operation):
    message, field, limit = refused(build)
    assert (field, limit) == ("request", 10 * 1024 * 1024)
    assert message.startswith(f"the {operation} request is ")
    assert "refuses requests over 10,485,760 bytes (10 MiB)" in message


def test_an_emulator_address_with_a_password_is_refused_without_it():
    with pytest.raises(ConfigurationError) as info:
        emulator_address("http://user:hunter2@127.0.0.1:8123", "--emulator-host")
    assert str(info.value) == (
        "--emulator-host has a user name or password (user:...@): the emulator takes none; "
        "write HOST:PORT, for example 127.0.0.1:8123"
    )


def test_only_spaces_and_tabs_are_dropped_at_a_line_start():
    # They would make an indented code block; other blanks (a no-break space) are text.
    assert _line(" \t# x", line_start=True) == "\\# x"
    assert _line("\u00a0 x", line_start=True) == "\u00a0 x"

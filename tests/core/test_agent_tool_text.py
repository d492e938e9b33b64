"""What agents read and do: the tool texts (numbered sources, a cited answer, the filter help)
and the policies for an ungrounded final answer (keep, raise, fallback, revise)."""

import pytest

from grounding_core import (
    MAX_TOOL_K,
    ConfigurationError,
    check_filter_fields,
    check_tool_text,
    tool_k_range,
)
from grounding_core.agent_policy import (
    MAX_CLAIM_CHARS,
    MAX_LISTED_CLAIMS,
    MAX_REVISIONS_LIMIT,
    agent_action,
    check_agent_policy,
    revision_request,
)
from grounding_core.records import (
    AnswerCitation,
    Claim,
    GroundedAnswer,
    GroundingResult,
    SourceChunk,
)
from grounding_core.report import GroundingReport
from grounding_core.tool_text import (
    FILTER_SYNTAX_HELP,
    NO_SOURCES_TEXT,
    answer_tool_text,
    filter_help,
    numbered_sources,
)


def test_numbered_sources_show_title_and_url_when_there_are_some():
    text = numbered_sources(
        [
            ("日本の首都は東京です。", {"title": "東京", "uri": "https://jp"}),
            ("no title", {"url": "https://u"}),
            ("bare", {}),
        ]
    )
    assert text == (
        "[1] 東京 (https://jp)\n日本の首都は東京です。\n\n[2] https://u\nno title\n\n[3]\nbare"
    )
    assert numbered_sources([]) == NO_SOURCES_TEXT


def test_answer_tool_text_marks_each_cited_segment_and_lists_the_sources():
    refs = (
        SourceChunk(name="a", content="A", title="Alpha", uri="https://a"),
        SourceChunk(name="b", content="B"),
    )
    text = "😀 one. two."
    answer = GroundedAnswer(
        text,
        (
            AnswerCitation(0, 6, 0, 9, "😀 one.", (0, 1, 0, 9)),  # a repeat and an unknown
            AnswerCitation(7, 11, 10, 14, "two.", (1,)),
            AnswerCitation(3, 3, 6, 6, "", (0,)),  # empty: no marker
        ),
        refs,
    )
    assert answer_tool_text(answer) == (
        "😀 one.[1][2] two.[2]\n\nSources:\n[1] Alpha (https://a)\n[2]"
    )
    assert answer_tool_text(GroundedAnswer("plain")) == "plain"
    declined = GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT", "LOW"))
    assert answer_tool_text(declined) == "No answer: NO_RELEVANT_CONTENT, LOW"


def test_filter_help_lists_the_fields_and_the_syntax():
    assert filter_help({"year": "publication year", "lang": ""}) == (
        f"Filterable fields: year (publication year), lang. {FILTER_SYNTAX_HELP}"
    )
    with pytest.raises(ConfigurationError, match="filter_fields is empty"):
        filter_help({})


def ungrounded(*texts, error=None):
    claims = tuple(Claim(t, None, None) for t in texts)
    if error is not None:
        return GroundingReport.failed((), (), error, 1.0)
    return GroundingReport(GroundingResult(" ".join(texts), 0.0, claims), (), ())


@pytest.mark.parametrize(
    ("policy", "revisions", "action"),
    [
        ("annotate", 0, "keep"),
        ("raise", 0, "raise"),
        ("fallback", 0, "fallback"),
        ("revise", 0, "revise"),
        ("revise", 1, "revise"),
        ("revise", 2, "fallback"),  # exactly at max_revisions
    ],
)
def test_the_action_for_an_ungrounded_answer(policy, revisions, action):
    assert agent_action(ungrounded("Made up."), policy, revisions, max_revisions=2) == action


def test_a_grounded_an_empty_or_a_failed_check():
    supported = Claim("Ok.", 0, 3, 0, 3, (0,))
    grounded = GroundingReport(GroundingResult("Ok.", 1.0, (supported,)), ("s",), ())
    assert agent_action(grounded, "revise", 0, 2) == "keep"
    assert agent_action(GroundingReport.nothing_to_check("", (), ()), "raise", 0, 2) == "keep"
    # A failed check has no claims to send back: revise falls back at once.
    failed = ungrounded(error=TimeoutError("slow"))
    assert agent_action(failed, "revise", 0, 2) == "fallback"
    assert agent_action(failed, "raise", 0, 2) == "raise"


def test_revision_request_is_bounded():
    long_claim = "ש" + "é" * (MAX_CLAIM_CHARS + 50)
    texts = [long_claim, *(f"Claim {i}\n  spread." for i in range(MAX_LISTED_CLAIMS + 2))]
    lines = revision_request(ungrounded(*texts)).split("\n")
    assert lines[0] == "The sources do not support these claims of your answer:"
    assert lines[1] == "- " + long_claim[: MAX_CLAIM_CHARS - 1] + "…"
    assert len(lines[1]) == MAX_CLAIM_CHARS + 2
    assert lines[2] == "- Claim 0 spread."
    assert lines[MAX_LISTED_CLAIMS] == f"- Claim {MAX_LISTED_CLAIMS - 2} spread."
    assert lines[MAX_LISTED_CLAIMS + 1] == "- ... and 3 more"
    assert lines[-1].startswith("Answer again using only what the sources say")
    assert len(lines) == MAX_LISTED_CLAIMS + 3
    exact = "x" * MAX_CLAIM_CHARS
    assert revision_request(ungrounded(exact)).split("\n")[1] == f"- {exact}"


@pytest.mark.parametrize("max_revisions", [0, MAX_REVISIONS_LIMIT])
def test_the_policy_settings_at_their_limits(max_revisions):
    check_agent_policy("revise", max_revisions)


@pytest.mark.parametrize(
    ("policy", "max_revisions", "message"),
    [
        ("ignore", 1, "on_ungrounded must be one of 'annotate', 'raise', 'fallback', 'revise'"),
        (
            "revise",
            MAX_REVISIONS_LIMIT + 1,
            f"max_revisions must be an int from 0 to {MAX_REVISIONS_LIMIT}",
        ),
        ("revise", -1, "max_revisions must be an int from 0"),
        ("revise", True, "got bool"),
        ("revise", 1.0, "got float"),
    ],
)
def test_bad_policy_settings_are_refused(policy, max_revisions, message):
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(")):
        check_agent_policy(policy, max_revisions)


def test_the_k_range_of_a_tool():
    assert tool_k_range(True, MAX_TOOL_K, MAX_TOOL_K) == (MAX_TOOL_K, MAX_TOOL_K)
    assert tool_k_range(True, 1, 1) == (1, 1)
    assert tool_k_range(False, 1, 50) is None  # no k argument: the retriever's k is used


@pytest.mark.parametrize(
    ("allow_k", "max_k", "default_k", "message"),
    [
        ("yes", 20, 4, "allow_k must be True or False, got str"),
        (True, 0, 4, f"max_k must be an int from 1 to {MAX_TOOL_K}, got 0"),
        (True, MAX_TOOL_K + 1, 4, f"got {MAX_TOOL_K + 1}"),
        (True, "SECRET", 4, "got str$"),
        (True, True, 1, "got bool$"),
        (True, 3, 4, r"max_k \(3\) is below the retriever's default k \(4\)"),
    ],
)
def test_bad_k_settings_are_refused(allow_k, max_k, default_k, message):
    with pytest.raises(ConfigurationError, match=message) as info:
        tool_k_range(allow_k, max_k, default_k)
    assert "SECRET" not in str(info.value)


def test_bad_tool_texts_and_filter_fields_are_refused_without_their_value():
    assert check_tool_text("name", "search") == "search"
    with pytest.raises(ConfigurationError, match=r"name must be a non-empty string .* got ' '"):
        check_tool_text("name", " ")
    with pytest.raises(ConfigurationError, match=r"got dict$"):
        check_tool_text("description", {"api_key": "SECRET"})
    assert check_filter_fields(None) is None
    assert check_filter_fields({"year": ""}) == {"year": ""}
    for bad in ({"": "x"}, {"year": 3}, ["year"], "SECRET"):
        with pytest.raises(ConfigurationError, match="filter_fields must map") as info:
            check_filter_fields(bad)
        assert "SECRET" not in str(info.value)

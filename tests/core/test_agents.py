"""``grounding_core.agents``: what an agent reads from our tools and does with an ungrounded
answer, the same in both frameworks.

Covers the policies (``check_agent_policy`` at and past its limits, ``agent_action`` for every
policy and report, ``revision_request`` bounded in claims and characters), the arguments a
model fills (``tool_arguments_model``, ``tool_validation_message``, ``check_filter_fields``,
``check_tool_text``, ``is_model_error``, ``narrowed_filter``, ``tool_k_range``, refusing bad
settings without echoing their value), and the texts (``numbered_sources``,
``answer_tool_text``, ``filter_help``, ``discovery_engine_tool_description`` and the tool
names and descriptions).
"""

from __future__ import annotations

from types import MappingProxyType

import pytest
from pydantic import ValidationError

from grounding_core import (
    AnswerCitation,
    Claim,
    ConfigurationError,
    DiscoveryEngineTarget,
    GroundedAnswer,
    GroundingReport,
    GroundingResult,
    InputError,
    InvalidRequestError,
    NotFoundError,
    SourceChunk,
)
from grounding_core.agents import (
    ANSWER_QUERY_DESCRIPTION,
    ANSWER_QUERY_TOOL_DESCRIPTION,
    ANSWER_QUERY_TOOL_NAME,
    DEFAULT_MAX_REVISIONS,
    DEFAULT_TOOL_MAX_K,
    DEVELOPER_KNOWLEDGE_FILTER_HELP,
    DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME,
    DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION,
    DISCOVERY_ENGINE_SEARCH_TOOL_NAME,
    FILTER_SYNTAX_HELP,
    K_DESCRIPTION,
    MAX_CLAIM_CHARS,
    MAX_LISTED_CLAIMS,
    MAX_REVISIONS_LIMIT,
    MAX_TOOL_K,
    NO_SOURCES_TEXT,
    QUERY_DESCRIPTION,
    REVISION_KEY,
    SEARCH_FILTER_DESCRIPTION,
    agent_action,
    answer_tool_text,
    check_agent_policy,
    check_filter_fields,
    check_tool_text,
    discovery_engine_tool_description,
    filter_help,
    is_model_error,
    narrowed_filter,
    numbered_sources,
    revision_request,
    tool_arguments_model,
    tool_k_range,
    tool_validation_message,
)

# -- the policies ------------------------------------------------------------------------------


def ungrounded(*texts: str) -> GroundingReport[str]:
    """The report of an answer whose every claim (``texts``) is unsupported."""
    claims = tuple(Claim(t, None, None) for t in texts)
    return GroundingReport(GroundingResult(" ".join(texts), 0.0, claims), (), ())


GROUNDED = GroundingReport(
    GroundingResult("Ok.", 1.0, (Claim("Ok.", 0, 3, 0, 3, (0,)),)), ("s",), ()
)
NOTHING = GroundingReport.nothing_to_check("", (), ())
FAILED = GroundingReport.failed((), (), TimeoutError("slow"), 1.0)


def test_the_policy_constants():
    assert (DEFAULT_MAX_REVISIONS, MAX_REVISIONS_LIMIT) == (2, 10)
    assert (MAX_LISTED_CLAIMS, MAX_CLAIM_CHARS) == (20, 300)
    assert REVISION_KEY == "grounding_revision"


@pytest.mark.parametrize("policy", ["annotate", "raise", "fallback", "revise"])
@pytest.mark.parametrize("max_revisions", [0, 1, MAX_REVISIONS_LIMIT])
def test_every_policy_with_revisions_at_their_limits(policy, max_revisions):
    assert check_agent_policy(policy, max_revisions) is None


@pytest.mark.parametrize(
    ("policy", "max_revisions", "words"),
    [
        ("ignore", 1, "on_ungrounded must be one of 'annotate', 'raise', 'fallback', 'revise'"),
        ("SECRET", 1, "got another string$"),
        ("", 1, "got another string$"),
        (None, 1, "got NoneType$"),
        (["revise"], 1, "got list$"),
        (
            "revise",
            MAX_REVISIONS_LIMIT + 1,
            f"max_revisions must be an int from 0 to {MAX_REVISIONS_LIMIT}",
        ),
        ("revise", MAX_REVISIONS_LIMIT + 1, f"got {MAX_REVISIONS_LIMIT + 1}$"),
        ("revise", -1, "got -1$"),
        ("revise", True, "got bool$"),
        ("revise", False, "got bool$"),
        ("revise", 1.0, "got float$"),
        ("revise", "SECRET", "got str$"),
        ("revise", None, "got NoneType$"),
    ],
)
def test_bad_policy_settings_are_refused_without_their_value(policy, max_revisions, words):
    with pytest.raises(ConfigurationError, match=words) as info:
        check_agent_policy(policy, max_revisions)
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize(
    ("policy", "revisions", "action"),
    [
        ("annotate", 0, "keep"),
        ("raise", 0, "raise"),
        ("fallback", 0, "fallback"),
        ("revise", 0, "revise"),
        ("revise", 1, "revise"),  # one below max_revisions
        ("revise", 2, "fallback"),  # exactly at max_revisions
        ("revise", 3, "fallback"),
    ],
)
def test_the_action_for_an_ungrounded_answer(policy, revisions, action):
    assert agent_action(ungrounded("Made up."), policy, revisions, max_revisions=2) == action


@pytest.mark.parametrize("policy", ["annotate", "raise", "fallback", "revise"])
def test_a_grounded_or_an_empty_answer_is_kept_by_every_policy(policy):
    assert agent_action(GROUNDED, policy, 0, 2) == "keep"
    assert agent_action(NOTHING, policy, 0, 2) == "keep"


@pytest.mark.parametrize(
    ("policy", "action"),
    [("annotate", "keep"), ("raise", "raise"), ("fallback", "fallback"), ("revise", "fallback")],
)
def test_a_failed_check_has_no_claims_to_send_back(policy, action):
    assert agent_action(FAILED, policy, 0, 2) == action


def test_no_revision_is_made_when_none_is_allowed():
    assert agent_action(ungrounded("Made up."), "revise", 0, 0) == "fallback"


def test_revision_request_lists_the_unsupported_claims():
    supported = Claim("Fine.", 0, 5, 0, 5, (0,))
    result = GroundingResult("Fine. Wrong.", 0.5, (supported, Claim("Wrong.", 6, 12)))
    assert revision_request(GroundingReport(result, ("s",), ())).split("\n") == [
        "The sources do not support these claims of your answer:",
        "- Wrong.",
        "Answer again using only what the sources say: correct these claims or leave them out, "
        "and say so if the sources do not answer the question.",
    ]


@pytest.mark.parametrize(
    ("claim", "line"),
    [
        ("x" * MAX_CLAIM_CHARS, "- " + "x" * MAX_CLAIM_CHARS),
        ("x" * (MAX_CLAIM_CHARS + 1), "- " + "x" * (MAX_CLAIM_CHARS - 1) + "…"),
        ("ש" + "é" * (MAX_CLAIM_CHARS + 50), "- ש" + "é" * (MAX_CLAIM_CHARS - 2) + "…"),
        ("Claim\n  spread\tout. ", "- Claim spread out."),
        ("  " + "y" * MAX_CLAIM_CHARS + "  ", "- " + "y" * MAX_CLAIM_CHARS),
    ],
    ids=["at-the-limit", "one-past", "any-script", "whitespace", "blank-ends"],
)
def test_each_listed_claim_is_one_line_of_at_most_300_characters(claim, line):
    assert revision_request(ungrounded(claim)).split("\n")[1] == line


@pytest.mark.parametrize(
    ("count", "last"),
    [
        (MAX_LISTED_CLAIMS, f"- Claim {MAX_LISTED_CLAIMS - 1}."),
        (MAX_LISTED_CLAIMS + 1, "- ... and 1 more"),
        (MAX_LISTED_CLAIMS + 3, "- ... and 3 more"),
    ],
)
def test_at_most_20_claims_are_listed(count, last):
    lines = revision_request(ungrounded(*(f"Claim {i}." for i in range(count)))).split("\n")
    listed = lines[1:-1]
    assert listed[: min(count, MAX_LISTED_CLAIMS)] == [
        f"- Claim {i}." for i in range(min(count, MAX_LISTED_CLAIMS))
    ]
    assert listed[-1] == last
    assert len(listed) == MAX_LISTED_CLAIMS + (count > MAX_LISTED_CLAIMS)


# -- the arguments a model fills ---------------------------------------------------------------


def test_the_argument_constants():
    assert (DEFAULT_TOOL_MAX_K, MAX_TOOL_K) == (20, 100)
    assert QUERY_DESCRIPTION == (
        "What to search for: the question or keywords, in the language of the documents."
    )
    assert K_DESCRIPTION.format(max_k=5, default=2) == (
        "How many sources to return, from 1 to 5 (default 2)."
    )


def test_a_query_only_model():
    Arguments = tool_arguments_model("docs_search")
    schema = Arguments.model_json_schema()
    assert Arguments.__name__ == "DocsSearchArguments"
    assert schema["properties"] == {
        "query": {
            "description": QUERY_DESCRIPTION,
            "minLength": 1,
            "title": "Query",
            "type": "string",
        }
    }
    assert schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    assert Arguments(query="q").model_dump() == {"query": "q"}


def test_a_model_with_a_filter_and_k():
    Arguments = tool_arguments_model(
        "my-tool", query_description="Ask.", filter_description="Narrow.", k=(4, 10)
    )
    schema = Arguments.model_json_schema()
    assert Arguments.__name__ == "MyToolArguments"
    assert schema["properties"] == {
        "query": {"description": "Ask.", "minLength": 1, "title": "Query", "type": "string"},
        "filter": {"default": "", "description": "Narrow.", "title": "Filter", "type": "string"},
        "k": {
            "default": 4,
            "description": "How many sources to return, from 1 to 10 (default 4).",
            "maximum": 10,
            "minimum": 1,
            "title": "K",
            "type": "integer",
        },
    }
    assert schema["required"] == ["query"]
    assert Arguments(query="q").model_dump() == {"query": "q", "filter": "", "k": 4}
    assert Arguments(query="q", filter="x", k=1).model_dump() == {
        "query": "q",
        "filter": "x",
        "k": 1,
    }
    assert Arguments(query="q", k=10).k == 10


@pytest.mark.parametrize("name", ["", "_", "-"])
def test_a_model_without_a_name_is_tool_arguments(name):
    assert tool_arguments_model(name).__name__ == "ToolArguments"


@pytest.mark.parametrize(
    ("arguments", "location"),
    [
        ({"query": ""}, ("query",)),
        ({}, ("query",)),
        ({"query": "q", "k": 0}, ("k",)),
        ({"query": "q", "k": 11}, ("k",)),
        ({"query": "q", "k": "many"}, ("k",)),
        ({"query": "q", "filter": 3}, ("filter",)),
        ({"query": "q", "top_k": 3}, ("top_k",)),  # unknown arguments are refused
    ],
)
def test_the_model_refuses_bad_arguments(arguments, location):
    Arguments = tool_arguments_model("docs_search", filter_description="f", k=(4, 10))
    with pytest.raises(ValidationError) as info:
        Arguments(**arguments)
    assert [line["loc"] for line in info.value.errors()] == [location]


def test_filter_and_k_are_refused_where_they_are_not_offered():
    Arguments = tool_arguments_model("docs_search")
    with pytest.raises(ValidationError) as info:
        Arguments(query="q", filter="x", k=3)
    assert [line["loc"] for line in info.value.errors()] == [("filter",), ("k",)]


def test_the_validation_message_names_each_argument_and_asks_again():
    Arguments = tool_arguments_model("docs_search", k=(4, 10))
    with pytest.raises(ValidationError) as info:
        Arguments(query="", k=11)
    message = tool_validation_message("docs_search", info.value)
    problems = [f"{line['loc'][0]}: {line['msg']}" for line in info.value.errors()]
    assert message == (
        f"Invalid arguments for docs_search: {'; '.join(problems)}. "
        "Call it again with valid arguments."
    )
    assert message.count("; ") == 1


def test_the_validation_message_names_nested_places_and_the_whole_input():
    Arguments = tool_arguments_model("t")
    with pytest.raises(ValidationError) as whole:
        Arguments.model_validate("not an object")
    (line,) = whole.value.errors()
    assert tool_validation_message("t", whole.value) == (
        f"Invalid arguments for t: arguments: {line['msg']}. Call it again with valid arguments."
    )
    nested = ValidationError.from_exception_data(
        "T", [{"type": "missing", "loc": ("a", 0, "b"), "input": {}}]
    )
    assert tool_validation_message("t", nested).startswith("Invalid arguments for t: a.0.b: ")


def test_check_filter_fields_copies_a_mapping_of_names_to_meanings():
    assert check_filter_fields(None) is None
    fields = {"year": "publication year", "lang": ""}
    checked = check_filter_fields(fields)
    assert checked == fields
    assert checked is not fields
    assert check_filter_fields(MappingProxyType({"year": "y"})) == {"year": "y"}
    assert check_filter_fields({}) == {}


@pytest.mark.parametrize(
    ("bad", "kind"),
    [
        ({"": "x"}, "dict"),
        ({"year": 3}, "dict"),
        ({3: "year"}, "dict"),
        ({"year": "y", "SECRET": None}, "dict"),
        (["year"], "list"),
        ("SECRET", "str"),
    ],
)
def test_bad_filter_fields_are_refused_without_their_value(bad, kind):
    with pytest.raises(
        ConfigurationError, match=f"^filter_fields must map .* got a {kind} "
    ) as info:
        check_filter_fields(bad)
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize("text", ["search", " x ", "東京"])
def test_a_tool_text_is_any_non_blank_string(text):
    assert check_tool_text("name", text) == text


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("", r"name must be a non-empty string .* got ''$"),
        (" \n", r"name must be a non-empty string .* got ' \\n'$"),
        ({"api_key": "SECRET"}, r"name must be a non-empty string .* got dict$"),
        (None, "got NoneType$"),
    ],
)
def test_a_blank_or_missing_tool_text_is_refused(value, words):
    with pytest.raises(ConfigurationError, match=words) as info:
        check_tool_text("name", value)
    assert "SECRET" not in str(info.value)


@pytest.mark.parametrize(
    ("error", "model_filter", "fixable"),
    [
        (InputError("bad query", field="query"), "", True),
        (InputError("bad filter", field="filter"), "year > 1", True),
        (InvalidRequestError("bad filter"), 'lang: ANY("en")', True),
        (InvalidRequestError("bad filter"), " x ", True),
        (InvalidRequestError("bad config"), "", False),
        (InvalidRequestError("bad config"), " \t", False),
        (NotFoundError("no data store"), "year > 1", False),
        (ConfigurationError("bad setting"), "year > 1", False),
        (ValueError("other"), "year > 1", False),
    ],
)
def test_only_what_the_model_can_fix_is_its_error(error, model_filter, fixable):
    assert is_model_error(error, model_filter) is fixable


@pytest.mark.parametrize(
    ("own", "model", "narrowed"),
    [
        ('lang: ANY("en")', "year >= 2020", '(lang: ANY("en")) AND (year >= 2020)'),
        ('lang: ANY("en")', "  year >= 2020\n", '(lang: ANY("en")) AND (year >= 2020)'),
        ("", " year >= 2020 ", "year >= 2020"),
        ("x", "", "x"),
        ("x", "   ", "x"),
        ("", "", ""),
    ],
)
def test_the_models_filter_narrows_the_tools_own(own, model, narrowed):
    assert narrowed_filter(own, model) == narrowed


@pytest.mark.parametrize(
    ("allow_k", "max_k", "default_k", "k_range"),
    [
        (True, 20, 4, (4, 20)),
        (True, MAX_TOOL_K, MAX_TOOL_K, (MAX_TOOL_K, MAX_TOOL_K)),
        (True, 1, 1, (1, 1)),
        (True, 5, 5, (5, 5)),  # max_k exactly the default
        (False, 1, 50, None),  # no k argument: the retriever's k is used
        (False, MAX_TOOL_K, 4, None),
    ],
)
def test_the_k_range_of_a_tool(allow_k, max_k, default_k, k_range):
    assert tool_k_range(allow_k, max_k, default_k) == k_range


@pytest.mark.parametrize(
    ("allow_k", "max_k", "default_k", "words"),
    [
        ("yes", 20, 4, "allow_k must be True or False, got str"),
        (1, 20, 4, "allow_k must be True or False, got int"),
        (None, 20, 4, "allow_k must be True or False, got NoneType"),
        (True, 0, 4, f"max_k must be an int from 1 to {MAX_TOOL_K}, got 0$"),
        (True, -3, 4, "got -3$"),
        (True, MAX_TOOL_K + 1, 4, f"got {MAX_TOOL_K + 1}$"),
        (False, 0, 4, "got 0$"),  # checked even when no k is offered
        (True, "SECRET", 4, "got str$"),
        (True, True, 1, "got bool$"),
        (True, 3.0, 1, "got float$"),
        (
            True,
            3,
            4,
            r"max_k \(3\) is below the retriever's default k \(4\): .* or lower the retriever's k",
        ),
    ],
)
def test_bad_k_settings_are_refused_without_their_value(allow_k, max_k, default_k, words):
    with pytest.raises(ConfigurationError, match=words) as info:
        tool_k_range(allow_k, max_k, default_k)
    assert "SECRET" not in str(info.value)


# -- the texts a model reads -------------------------------------------------------------------


def test_numbered_sources_show_title_and_url_when_there_are_some():
    text = numbered_sources(
        [
            ("日本の首都は東京です。", {"title": "東京", "uri": "https://jp"}),
            ("no title", {"url": "https://u"}),
            ("title only", {"title": "T"}),
            ("bare", {}),
            ("", {"source": "gs://b/o", "title": 3}),
        ]
    )
    assert text == (
        "[1] 東京 (https://jp)\n日本の首都は東京です。\n\n"
        "[2] https://u\nno title\n\n"
        "[3] T\ntitle only\n\n"
        "[4]\nbare\n\n"
        "[5] gs://b/o\n"
    )


def test_no_sources_say_so():
    assert numbered_sources([]) == NO_SOURCES_TEXT == "No sources were found for this query."


def test_answer_tool_text_marks_each_cited_segment_and_lists_the_sources():
    refs = (
        SourceChunk(name="a", content="A", title="Alpha", uri="https://a"),
        SourceChunk(name="b", content="B"),
        SourceChunk(name="c", content="C", uri="https://c"),
    )
    text = "😀 one. two. three"
    answer = GroundedAnswer(
        text,
        (
            AnswerCitation(0, 6, 0, 9, "😀 one.", (0, 1, 0, 9, -1)),  # a repeat and unknowns
            AnswerCitation(7, 11, 10, 14, "two.", (1,)),
            AnswerCitation(3, 3, 6, 6, "", (0,)),  # empty: no marker
            AnswerCitation(7, 11, 10, 14, "two.", (2, 1, 2)),  # same end: merged, each once
            AnswerCitation(12, 17, 15, 20, "three", (2,)),  # at the very end
            AnswerCitation(12, 18, 15, 21, "three", (0,)),  # one past the end: no marker
        ),
        refs,
    )
    assert answer_tool_text(answer) == (
        "😀 one.[1][2] two.[2][3] three[3]\n\nSources:\n[1] Alpha (https://a)\n[2]\n[3] https://c"
    )


def test_an_answer_without_references_or_citations_is_its_text():
    assert answer_tool_text(GroundedAnswer("plain")) == "plain"
    lone = GroundedAnswer("Cited.", (AnswerCitation(0, 6, 0, 6, "Cited.", (0,)),))
    assert answer_tool_text(lone) == "Cited."


def test_a_declined_answer_says_why():
    declined = GroundedAnswer("", skipped_reasons=("NO_RELEVANT_CONTENT", "LOW"))
    assert answer_tool_text(declined) == "No answer: NO_RELEVANT_CONTENT, LOW"


def test_filter_help_lists_the_fields_and_the_syntax():
    assert filter_help({"year": "publication year", "lang": ""}) == (
        f"Filterable fields: year (publication year), lang. {FILTER_SYNTAX_HELP}"
    )
    assert FILTER_SYNTAX_HELP.startswith("Filter syntax (Vertex AI Search): ")
    with pytest.raises(ConfigurationError, match=r"^filter_fields is empty: ") as info:
        filter_help({})
    assert (
        "(the data store's schema marks them), e.g. {'year': 'publication year'}, or leave "
        "filter_fields unset to offer no filter argument"
    ) in str(info.value)


@pytest.mark.parametrize(
    ("target", "searched"),
    [
        (DiscoveryEngineTarget(project="p", data_store="docs"), "data store docs"),
        (DiscoveryEngineTarget(project="p", engine="app"), "app app"),
    ],
)
def test_the_search_tool_description_names_its_data_store_or_app(target, searched):
    assert discovery_engine_tool_description(target) == (
        f"Search the documents of the Vertex AI Search {searched} for passages relevant to a "
        "query. Use it before answering any question those documents may cover. Returns "
        "numbered sources, each with its title, URL and text: answer only from them and "
        "cite them as [n]."
    )


def test_the_tool_names_and_descriptions():
    assert DISCOVERY_ENGINE_SEARCH_TOOL_NAME == "discovery_engine_search"
    assert DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME == "developer_knowledge_search"
    assert ANSWER_QUERY_TOOL_NAME == "answer_query"
    assert SEARCH_FILTER_DESCRIPTION.startswith("A filter expression over the fields")
    assert DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION.startswith(
        "Search Google's developer documentation"
    )
    assert "cite them as [n]" in DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION
    for field in ("data_source", "uri", "update_time", "content_length_bytes"):
        assert field in DEVELOPER_KNOWLEDGE_FILTER_HELP
    assert ANSWER_QUERY_TOOL_DESCRIPTION.startswith("Answer a question with Google's grounded")
    assert ANSWER_QUERY_DESCRIPTION == "The question to answer, as a complete sentence."

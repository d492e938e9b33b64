"""What an agent reads from our tools and does with an ungrounded answer, in both frameworks:
the arguments its model fills (``query``, and ``filter``/``k`` where allowed), the texts it reads
(numbered sources, a cited answer, the filter help), and the policies of its final answer
(annotate, raise, fallback, or revise: the unsupported claims go back to the model).

>>> print(numbered_sources([("Paris is in France.", {"title": "Paris", "uri": "https://p"})]))
[1] Paris (https://p)
Paris is in France.
>>> Arguments = tool_arguments_model("docs_search", k=(4, 10))
>>> sorted(Arguments.model_json_schema()["properties"]), Arguments(query="with", k=3).k
(['k', 'query'], 3)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, get_args

from ._errors import ConfigurationError, InputError, InvalidRequestError
from ._records import GroundedAnswer
from ._settings import DiscoveryEngineTarget
from .citations import source_title, source_url

if TYPE_CHECKING:
    # pydantic comes with either framework; the base install (the CLI) has no need of it.
    from pydantic import BaseModel, ValidationError

    from .grounding.report import GroundingReport

# -- the policies of an agent's final answer ----------------------------------------------------

AgentPolicy = Literal["annotate", "raise", "fallback", "revise"]
"""What to do with an ungrounded final answer: keep it with its report, raise
``UngroundedAnswerError``, replace it by the fallback answer, or have the model revise it."""

AgentAction = Literal["keep", "raise", "fallback", "revise"]
"""What to do with one final answer, given its report and the revisions made so far."""

DEFAULT_MAX_REVISIONS = 2
"""How many times ``revise`` sends an answer back to the model before it falls back."""

MAX_REVISIONS_LIMIT = 10
"""The most revisions a component may be configured with: each is a model call and a check."""

REVISION_KEY = "grounding_revision"
"""The ``additional_kwargs`` key that tells a revision request from the user's own messages, in
both frameworks (its value: the revision's number, from 1)."""

MAX_LISTED_CLAIMS = 20
MAX_CLAIM_CHARS = 300

_POLICIES = get_args(AgentPolicy)


def check_agent_policy(on_ungrounded: object, max_revisions: object) -> None:
    """Raise ``ConfigurationError`` unless ``on_ungrounded`` is an ``AgentPolicy`` and
    ``max_revisions`` an int from 0 to ``MAX_REVISIONS_LIMIT``."""
    # The errors show a type, not a value: a value in the wrong argument may be a secret.
    if on_ungrounded not in _POLICIES:
        given = "another string" if isinstance(on_ungrounded, str) else type(on_ungrounded).__name__
        raise ConfigurationError(
            f"on_ungrounded must be one of {', '.join(map(repr, _POLICIES))}, got {given}"
        )
    is_int = isinstance(max_revisions, int) and not isinstance(max_revisions, bool)
    if not is_int or not 0 <= max_revisions <= MAX_REVISIONS_LIMIT:  # type: ignore[operator]
        given = repr(max_revisions) if is_int else type(max_revisions).__name__
        raise ConfigurationError(
            f"max_revisions must be an int from 0 to {MAX_REVISIONS_LIMIT} (each revision is "
            f"one more model call and check), got {given}"
        )


def agent_action(
    report: GroundingReport[Any], policy: AgentPolicy, revisions: int, max_revisions: int
) -> AgentAction:
    """The action for a final answer whose check gave ``report``, after ``revisions``: a passed
    (or skipped) answer is kept, else the policy decides; ``revise`` falls back once
    ``max_revisions`` are spent or when the check failed (no claims to send back)."""
    if report.passed or report.skipped_reason is not None or policy == "annotate":
        return "keep"
    if policy == "revise":
        return "revise" if report.error is None and revisions < max_revisions else "fallback"
    return policy


def _listed(text: str) -> str:
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= MAX_CLAIM_CHARS else one_line[: MAX_CLAIM_CHARS - 1] + "…"


def revision_request(report: GroundingReport[Any]) -> str:
    """The request to revise: the unsupported claims (at most ``MAX_LISTED_CLAIMS``, each cut to
    ``MAX_CLAIM_CHARS`` characters: it stays small whatever the answer) and what to do."""
    claims = [claim.text for claim in report.unsupported_claims]
    lines = [f"- {_listed(text)}" for text in claims[:MAX_LISTED_CLAIMS]]
    if len(claims) > MAX_LISTED_CLAIMS:
        lines.append(f"- ... and {len(claims) - MAX_LISTED_CLAIMS} more")
    instruction = (
        "Answer again using only what the sources say: correct these claims or leave them out, "
        "and say so if the sources do not answer the question."
    )
    return "\n".join(
        ["The sources do not support these claims of your answer:", *lines, instruction]
    )


# -- the arguments a model fills -------------------------------------------------------------

DEFAULT_TOOL_MAX_K = 20
"""The most sources an agent may ask a search tool for (``allow_k=True``), unless set."""

MAX_TOOL_K = 100
"""The highest ``max_k``: more sources than this would not fit a model's context anyway."""

QUERY_DESCRIPTION = (
    "What to search for: the question or keywords, in the language of the documents."
)
K_DESCRIPTION = "How many sources to return, from 1 to {max_k} (default {default})."


def check_tool_text(name: str, value: object) -> str:
    """``value`` if it is a non-blank string (a tool's name or description), else a
    ``ConfigurationError`` naming ``name``."""
    if not isinstance(value, str) or not value.strip():
        got = repr(value) if isinstance(value, str) else type(value).__name__
        raise ConfigurationError(
            f"{name} must be a non-empty string (the agent's LLM reads it to choose the tool), "
            f"got {got}"
        )
    return value


def tool_arguments_model(
    tool_name: str,
    *,
    query_description: str = QUERY_DESCRIPTION,
    filter_description: str | None = None,
    k: tuple[int, int] | None = None,
) -> type[BaseModel]:
    """The pydantic model of a tool's arguments, unknown ones refused: ``query`` (not empty);
    ``filter`` (default empty) with ``filter_description``; ``k`` from 1 to ``max_k`` with ``k``
    = ``(default, max_k)``. pydantic, which both frameworks bring, is imported here."""
    from pydantic import ConfigDict, Field, create_model

    fields: dict[str, Any] = {"query": (str, Field(min_length=1, description=query_description))}
    if filter_description is not None:
        fields["filter"] = (str, Field(default="", description=filter_description))
    if k is not None:
        default, maximum = k
        description = K_DESCRIPTION.format(max_k=maximum, default=default)
        fields["k"] = (int, Field(default=default, ge=1, le=maximum, description=description))
    title = "".join(part.capitalize() for part in tool_name.replace("-", "_").split("_"))
    return create_model(
        f"{title or 'Tool'}Arguments", __config__=ConfigDict(extra="forbid"), **fields
    )


def tool_validation_message(tool_name: str, error: ValidationError) -> str:
    """What the model reads when its arguments break the schema: each problem with its
    argument, and the request to call again."""
    problems = "; ".join(
        f"{'.'.join(str(part) for part in line['loc']) or 'arguments'}: {line['msg']}"
        for line in error.errors()
    )
    return f"Invalid arguments for {tool_name}: {problems}. Call it again with valid arguments."


def check_filter_fields(filter_fields: object) -> dict[str, str] | None:
    """A copy of ``filter_fields`` (field name -> what it holds), ``None`` for none, else a
    ``ConfigurationError``."""
    if filter_fields is None:
        return None
    if not isinstance(filter_fields, Mapping) or not all(
        isinstance(name, str) and name and isinstance(meaning, str)
        for name, meaning in filter_fields.items()
    ):
        raise ConfigurationError(
            "filter_fields must map each filterable field's name to what it holds, e.g. "
            f"{{'year': 'publication year'}}, got a {type(filter_fields).__name__} that does not"
        )
    return dict(filter_fields)


def is_model_error(exc: Exception, model_filter: str) -> bool:
    """Whether the model can fix what failed its tool call (the tool tells it, rather than
    raise): a request refused before sending (the configuration was checked at build time), or
    one the service rejects when the model wrote a filter (``model_filter``)."""
    model_wrote_it = isinstance(exc, InvalidRequestError) and bool(model_filter.strip())
    return isinstance(exc, InputError) or model_wrote_it


def narrowed_filter(own: str, model_filter: str) -> str:
    """The filter of one tool call: the model's narrows the tool's own, never widens it.

    >>> narrowed_filter('lang: ANY("en")', "year >= 2020")
    '(lang: ANY("en")) AND (year >= 2020)'
    >>> narrowed_filter("", " year >= 2020 "), narrowed_filter("x", "")
    ('year >= 2020', 'x')
    """
    narrowing = model_filter.strip()
    if not narrowing:
        return own
    return f"({own}) AND ({narrowing})" if own else narrowing


def tool_k_range(allow_k: object, max_k: object, default_k: int) -> tuple[int, int] | None:
    """``(default_k, max_k)`` of a tool's ``k`` argument, ``None`` when ``allow_k`` is false;
    a ``ConfigurationError`` unless ``allow_k`` is a bool, ``max_k`` an int from 1 to
    ``MAX_TOOL_K`` and, with ``allow_k``, at least the retriever's ``default_k``.

    >>> tool_k_range(True, 20, 4), tool_k_range(False, 20, 4)
    ((4, 20), None)
    """
    if not isinstance(allow_k, bool):
        raise ConfigurationError(f"allow_k must be True or False, got {type(allow_k).__name__}")
    if isinstance(max_k, bool) or not isinstance(max_k, int) or not 1 <= max_k <= MAX_TOOL_K:
        # The type, not the value, for a wrong type: a misplaced argument may hold a secret.
        got = max_k if type(max_k) is int else type(max_k).__name__
        raise ConfigurationError(f"max_k must be an int from 1 to {MAX_TOOL_K}, got {got}")
    if not allow_k:
        return None
    if default_k > max_k:
        raise ConfigurationError(
            f"max_k ({max_k}) is below the retriever's default k ({default_k}): raise max_k "
            "or lower the retriever's k"
        )
    return default_k, max_k


# -- what the model reads ----------------------------------------------------------------------

NO_SOURCES_TEXT = "No sources were found for this query."
"""The tool text of a search that found nothing (the model should say so, not guess)."""

FILTER_SYNTAX_HELP = (
    'Filter syntax (Vertex AI Search): field: ANY("value1", "value2") matches any of the '
    "text values; numbers compare with =, <, <=, >, >= (year >= 2020); combine with AND, "
    "OR, NOT and parentheses; text values in double quotes. Leave the filter empty to search "
    "everything."
)
"""Google's filter expression syntax in one paragraph, for a tool description (the reference:
https://cloud.google.com/generative-ai-app-builder/docs/filter-search-metadata)."""


def _heading(number: int, metadata: Mapping[str, Any]) -> str:
    title, url = source_title(metadata), source_url(metadata)
    parts = [f"[{number}]", title, f"({url})" if title and url else url]
    return " ".join(part for part in parts if part)


def numbered_sources(sources: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """``sources`` (text and metadata each) as ``[n] title (url)`` headings over their text,
    numbered from 1; no sources give ``NO_SOURCES_TEXT``."""
    if not sources:
        return NO_SOURCES_TEXT
    return "\n\n".join(
        f"{_heading(number, metadata)}\n{text}"
        for number, (text, metadata) in enumerate(sources, start=1)
    )


def answer_tool_text(answer: GroundedAnswer) -> str:
    """An answerQuery answer for a model: the text with ``[n]`` after each cited segment (``n``
    numbers the answer's references from 1) and the references listed under ``Sources:``; a
    declined answer says so, with Google's skip reasons."""
    if answer.skipped:
        return "No answer: " + ", ".join(answer.skipped_reasons)
    references = answer.references
    listed = [_heading(n, {"title": r.title, "uri": r.uri}) for n, r in enumerate(references, 1)]
    cited = cited_text(answer)
    return cited + "\n\nSources:\n" + "\n".join(listed) if references else cited


def cited_text(answer: GroundedAnswer) -> str:
    """The answer's text with ``[n]`` after each cited segment (``n`` numbers the answer's
    references from 1), as a search summary's ``summary_text`` marks them."""
    references = answer.references
    text, count = answer.answer_text, len(references)
    markers: dict[int, list[int]] = {}
    for citation in answer.citations:
        if 0 <= citation.start < citation.end <= len(text):
            numbers = markers.setdefault(citation.end, [])
            numbers.extend(
                i + 1 for i in citation.reference_indices if 0 <= i < count and i + 1 not in numbers
            )
    pieces, position = [], 0
    for end in sorted(markers):
        pieces += [text[position:end], *(f"[{number}]" for number in markers[end])]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


def filter_help(fields: Mapping[str, str]) -> str:
    """A tool description's filter paragraph: the fields (name and what it holds) and
    ``FILTER_SYNTAX_HELP``; none is a ``ConfigurationError`` (an unfillable filter is no help)."""
    if not fields:
        raise ConfigurationError(
            "filter_fields is empty: name at least one filterable field (the data store's "
            "schema marks them), e.g. {'year': 'publication year'}, or leave filter_fields "
            "unset to offer no filter argument"
        )
    listed = ", ".join(
        f"{name} ({meaning})" if meaning else name for name, meaning in fields.items()
    )
    return f"Filterable fields: {listed}. {FILTER_SYNTAX_HELP}"


DISCOVERY_ENGINE_SEARCH_TOOL_NAME = "discovery_engine_search"
"""The default name of the Discovery Engine search tool, in both frameworks."""

SEARCH_FILTER_DESCRIPTION = (
    "A filter expression over the fields the tool description lists, to narrow the search; "
    "leave it empty to search everything."
)
"""The description of a Discovery Engine search tool's ``filter`` argument."""


def discovery_engine_tool_description(target: DiscoveryEngineTarget) -> str:
    """The default description of a search tool over ``target`` (its data store or app named),
    which tells the model when to call it and how to use what it returns."""
    searched = f"data store {target.data_store}" if target.data_store else f"app {target.engine}"
    return (
        f"Search the documents of the Vertex AI Search {searched} for passages relevant to a "
        "query. Use it before answering any question those documents may cover. Returns "
        "numbered sources, each with its title, URL and text: answer only from them and "
        "cite them as [n]."
    )


DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME = "developer_knowledge_search"
"""The default name of the Developer Knowledge search tool, in both frameworks."""

DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION = (
    "Search Google's developer documentation (Google Cloud, Android, Firebase, web.dev and "
    "more) for passages relevant to a query. Use it before answering questions about Google's "
    "developer products. Returns numbered sources, each with its title, URL and text: answer "
    "only from them and cite them as [n]."
)
"""The default description of the Developer Knowledge search tool."""

DEVELOPER_KNOWLEDGE_FILTER_HELP = (
    "An AIP-160 filter expression to narrow the search; leave it empty to search everything. "
    "Fields: data_source and uri (text, in double quotes; = and !=, e.g. data_source = "
    '"firebase.google.com"), update_time (an RFC 3339 time in double quotes) and '
    "content_length_bytes (an integer), both with =, <, <=, >, >=; combine with AND, OR, NOT "
    "and parentheses."
)
"""The Developer Knowledge search tool's ``filter`` argument (the API reference of
``SearchDocumentChunks``)."""

ANSWER_QUERY_TOOL_NAME = "answer_query"
"""The default name of the answerQuery tool, in both frameworks."""

ANSWER_QUERY_TOOL_DESCRIPTION = (
    "Answer a question with Google's grounded answer service, from its indexed documents. "
    "Returns the answer with [n] markers after each cited passage and the numbered sources "
    "(title and URL) they point to: pass them on with your answer."
)
"""The default description of the answerQuery tool."""

ANSWER_QUERY_DESCRIPTION = "The question to answer, as a complete sentence."
"""The answerQuery tool's ``query`` argument."""

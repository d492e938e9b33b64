"""What an agent's model reads from our tools: numbered sources, cited answers, filter help.

The tools of both frameworks give the model compact text (the documents or nodes themselves go
alongside, as the tool's artifact or raw output, for the grounding check and the UI): each
source numbered, with its title and address, so that the model can cite ``[n]``; an answerQuery
answer with its ``[n]`` markers and its source list.

>>> print(numbered_sources([("Paris is in France.", {"title": "Paris", "uri": "https://p"})]))
[1] Paris (https://p)
Paris is in France.
>>> print(filter_help({"year": "publication year"}))  # doctest: +ELLIPSIS
Filterable fields: year (publication year). Filter syntax (Vertex AI Search): ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .citations import source_title, source_url
from .errors import ConfigurationError
from .records import GroundedAnswer
from .settings import DiscoveryEngineTarget

__all__ = [
    "ANSWER_QUERY_DESCRIPTION",
    "ANSWER_QUERY_TOOL_DESCRIPTION",
    "ANSWER_QUERY_TOOL_NAME",
    "DEVELOPER_KNOWLEDGE_FILTER_HELP",
    "DEVELOPER_KNOWLEDGE_SEARCH_TOOL_NAME",
    "DEVELOPER_KNOWLEDGE_TOOL_DESCRIPTION",
    "DISCOVERY_ENGINE_SEARCH_TOOL_NAME",
    "FILTER_SYNTAX_HELP",
    "NO_SOURCES_TEXT",
    "SEARCH_FILTER_DESCRIPTION",
    "answer_tool_text",
    "discovery_engine_tool_description",
    "filter_help",
    "numbered_sources",
]

NO_SOURCES_TEXT = "No sources were found for this query."
"""The tool text of a search that found nothing (the model should say so, not guess)."""

FILTER_SYNTAX_HELP = (
    'Filter syntax (Vertex AI Search): field: ANY("value1", "value2") matches any of the '
    "text values; numbers compare with =, !=, <, <=, >, >= (year >= 2020); combine with AND, "
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
    text, count = answer.answer_text, len(answer.references)
    markers: dict[int, list[int]] = {}
    for citation in answer.citations:
        if 0 <= citation.start < citation.end <= len(text):
            numbers = markers.setdefault(citation.end, [])
            numbers.extend(
                i + 1 for i in citation.reference_indices if 0 <= i < count and i + 1 not in numbers
            )
    pieces, position = [], 0
    for end in sorted(markers):
        pieces.append(text[position:end])
        pieces.extend(f"[{number}]" for number in markers[end])
        position = end
    pieces.append(text[position:])
    cited = "".join(pieces)
    if not answer.references:
        return cited
    listed = [
        _heading(number, {"title": reference.title, "uri": reference.uri})
        for number, reference in enumerate(answer.references, start=1)
    ]
    return cited + "\n\nSources:\n" + "\n".join(listed)


def filter_help(fields: Mapping[str, str]) -> str:
    """A tool description's filter paragraph: the filterable fields (name and what it holds)
    and ``FILTER_SYNTAX_HELP``. No fields raise ``ConfigurationError``: a filter argument
    the model cannot fill should not be offered."""
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
"""The Developer Knowledge search tool's ``filter`` argument: AIP-160 expressions on
``data_source``, ``uri``, ``update_time`` and ``content_length_bytes`` (the API reference of
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

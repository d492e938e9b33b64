"""Search summaries: a Discovery Engine ``Search`` with ``content_search_spec.summary_spec``,
sync and async, returning the summary as a ``GroundedAnswer``.

The summary's text is ``summary_with_metadata.summary`` (the text its citation spans index),
its citations carry string and UTF-8 byte spans and their references (the search results the
summary cites, as ``SourceChunk`` records), ``skipped_reasons`` says why a summary was skipped
(then the text is the service's fallback message). So ``answer_markdown``, ``answer_metadata``
and the frameworks' answer outputs work on a summary as on an answer.

>>> spec = SummarySpec(result_count=3, ignore_non_summary_seeking_query=True)
>>> spec.result_count, spec.include_citations
(3, True)
>>> summarizing = DiscoveryEngineSearchSummary.create(
...     DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:8123"),
...     data_store_id="python-docs",
...     result_count=3,
... )
>>> summarizing.answer("How do I open a file?").answer_text  # doctest: +SKIP
'The open() function returns a file object ...'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from google.cloud import discoveryengine_v1 as de

from .answer_stream import AnswerStreamItem, whole_answer
from .clients import DiscoveryEngineClients
from .connection import DiscoveryEngineConnection, DiscoveryEngineConnectionArgs
from .convert import answer_from_search_summary
from .errors import InputError, translate_errors
from .records import GroundedAnswer
from .retrieval import DiscoveryEngineTargetArgs, connect_arguments
from .search import search_request
from .settings import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    CallOptions,
    DiscoveryEngineTarget,
)
from .specs import ChunkSearchSpec, SearchOptions, SearchResultMode, check_count
from .validation import check_field_types

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DEFAULT_SUMMARY_RESULT_COUNT",
    "MAX_SUMMARY_RESULTS_CHUNKS",
    "MAX_SUMMARY_RESULTS_DOCUMENTS",
    "DiscoveryEngineSearchSummary",
    "DiscoveryEngineSearchSummaryArgs",
    "SummaryOptions",
    "SummarySpec",
    "asearch_summary",
    "search_summary",
    "search_summary_request",
]

# SummarySpec.summary_result_count: "At most 10 results for documents mode, or 50 for chunks
# mode, can be used to generate a summary."
MAX_SUMMARY_RESULTS_DOCUMENTS = 10
MAX_SUMMARY_RESULTS_CHUNKS = 50
# The count of Google's search sample and of the "Get search summaries" page's example.
DEFAULT_SUMMARY_RESULT_COUNT = 5

_MAX_RESULTS: dict[SearchResultMode, int] = {
    "chunks": MAX_SUMMARY_RESULTS_CHUNKS,
    "documents": MAX_SUMMARY_RESULTS_DOCUMENTS,
}
# The search options the framework components took flat before ``search`` held them all.


@dataclass(frozen=True, slots=True)
class SummarySpec:
    """Options of a search summary (Google's ``SummarySpec`` field docs).

    ``result_count``: the top results the summary is drawn from (1..50 in chunk mode, 1..10
    in documents mode; default 5). ``include_citations`` (default true, unlike Google's false:
    citations are the point here) asks for citation spans and in-line numbers. The
    ``ignore_*`` flags skip a summary for adversarial, non-summary-seeking (chit-chat,
    navigational) and jail-breaking queries, or when the results have low relevance
    (``ignore_low_relevant_content``). ``preamble`` (``model_prompt_spec``),
    ``language_code``, ``model_version`` (``model_spec.version``: ``stable``, ``preview``)
    and ``use_semantic_chunks`` are passed on as they are.

    >>> SummarySpec(result_count=0)
    Traceback (most recent call last):
    ...
    grounding_core.errors.InputError: result_count must be between 1 and 50, got 0
    """

    result_count: int = DEFAULT_SUMMARY_RESULT_COUNT
    include_citations: bool = True
    ignore_adversarial_query: bool = False
    ignore_non_summary_seeking_query: bool = False
    ignore_low_relevant_content: bool = False
    ignore_jail_breaking_query: bool = False
    preamble: str = ""
    language_code: str = ""
    model_version: str = ""
    use_semantic_chunks: bool = False

    def __post_init__(self) -> None:
        check_field_types(self)
        check_count(
            "result_count", self.result_count, minimum=1, maximum=max(_MAX_RESULTS.values())
        )


class SummaryOptions(TypedDict, total=False):
    """The fields of ``SummarySpec`` as keyword arguments (any may be left out: ``SummarySpec``'s
    defaults apply), for components that take them as ``**options``."""

    result_count: int
    include_citations: bool
    ignore_adversarial_query: bool
    ignore_non_summary_seeking_query: bool
    ignore_low_relevant_content: bool
    ignore_jail_breaking_query: bool
    preamble: str
    language_code: str
    model_version: str
    use_semantic_chunks: bool


class DiscoveryEngineSearchSummaryArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, SummaryOptions, total=False
):
    """Every keyword argument of a search summary in one set, as the framework components take
    them: the connection's, the target's, the summary options (``SummaryOptions``) and
    ``search``, the search's options (a ``ChunkSearchSpec`` or its ``SearchOptions`` as a
    dict: the same names as the retrievers')."""

    search: ChunkSearchSpec | SearchOptions


def _search_spec(search: ChunkSearchSpec | SearchOptions) -> ChunkSearchSpec:
    """``search`` as a ``ChunkSearchSpec`` (a dict is its ``SearchOptions``), validated."""
    if isinstance(search, ChunkSearchSpec):
        return search
    if not isinstance(search, Mapping):
        raise InputError(
            "search must be a ChunkSearchSpec or a dict of its options, e.g. "
            f"{{'filter': 'lang: ANY(\"en\")', 'search_mode': 'documents'}}, got "
            f"{type(search).__name__}",
            field="search",
        )
    unknown = sorted(set(search) - SearchOptions.__optional_keys__)
    if unknown:
        raise InputError(
            f"search has no option {unknown[0]!r}: the options are ChunkSearchSpec's fields "
            f"({', '.join(sorted(SearchOptions.__optional_keys__))})",
            field=f"search.{unknown[0]}",
        )
    return ChunkSearchSpec(**search)  # type: ignore[arg-type]


def _check_mode(summary: SummarySpec, search: ChunkSearchSpec) -> None:
    if search.document_text != "auto":
        raise InputError(
            f"search.document_text={search.document_text!r} does not apply to a summary: its "
            "references carry the cited chunk contents; leave document_text 'auto'",
            field="search.document_text",
        )
    maximum = _MAX_RESULTS[search.search_mode]
    if summary.result_count > maximum:
        raise InputError(
            f"result_count must be between 1 and {maximum} in {search.search_mode} mode, got "
            f"{summary.result_count}: lower it, or search in chunk mode (at most "
            f"{MAX_SUMMARY_RESULTS_CHUNKS})",
            field="result_count",
            limit=maximum,
        )


def search_summary_request(
    target: DiscoveryEngineTarget,
    query: str,
    summary: SummarySpec = SummarySpec(),
    search: ChunkSearchSpec = ChunkSearchSpec(),
) -> de.SearchRequest:
    """The ``SearchRequest`` for ``query`` with ``summary``'s ``summary_spec``: ``search``'s
    options, one page of the ``result_count`` results the summary reads (``search.k`` is not
    used)."""
    _check_mode(summary, search)
    request = search_request(target, query, search)
    message = de.SearchRequest.pb(request)
    message.page_size = summary.result_count
    spec = message.content_search_spec.summary_spec
    spec.summary_result_count = summary.result_count
    spec.include_citations = summary.include_citations
    spec.ignore_adversarial_query = summary.ignore_adversarial_query
    spec.ignore_non_summary_seeking_query = summary.ignore_non_summary_seeking_query
    spec.ignore_low_relevant_content = summary.ignore_low_relevant_content
    spec.ignore_jail_breaking_query = summary.ignore_jail_breaking_query
    spec.model_prompt_spec.preamble = summary.preamble
    spec.language_code = summary.language_code
    spec.model_spec.version = summary.model_version
    spec.use_semantic_chunks = summary.use_semantic_chunks
    return request


def _summary(response: Any) -> GroundedAnswer:
    return answer_from_search_summary(type(response).pb(response))


def search_summary(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    summary: SummarySpec = SummarySpec(),
    search: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """The search summary of ``query``'s top results on ``target``."""
    request = search_summary_request(target, query, summary, search)
    with translate_errors("Search", target.serving_config_path):
        pager = clients.search().search(request=request, **options.call_kwargs())
        response = next(iter(pager.pages))
    return _summary(response)


async def asearch_summary(
    clients: DiscoveryEngineClients,
    target: DiscoveryEngineTarget,
    query: str,
    summary: SummarySpec = SummarySpec(),
    search: ChunkSearchSpec = ChunkSearchSpec(),
    options: CallOptions = CallOptions(),
) -> GroundedAnswer:
    """Async ``search_summary``, on Google's async client."""
    request = search_summary_request(target, query, summary, search)
    with translate_errors("Search", target.serving_config_path):
        pager = await clients.search_async().search(request=request, **options.async_call_kwargs())
        pages: Any = pager.pages  # an async generator: typed as a bare iterator
        try:
            response = await anext(pages)
        finally:
            # Closed here: left open, the event loop would schedule a task to close it.
            await pages.aclose()
    return _summary(response)


@dataclass(frozen=True, slots=True)
class DiscoveryEngineSearchSummary:
    """Search summaries of an engine or a data store as one component: ``answer`` and
    ``aanswer`` (the protocol of ``DiscoveryEngineAnswerQuery``, so that the frameworks wrap
    both alike) return the summary as a ``GroundedAnswer``."""

    connection: DiscoveryEngineConnection
    target: DiscoveryEngineTarget
    spec: SummarySpec = SummarySpec()
    search: ChunkSearchSpec = ChunkSearchSpec()

    def __post_init__(self) -> None:
        _check_mode(self.spec, self.search)

    @staticmethod
    def search_spec(search: ChunkSearchSpec | SearchOptions) -> ChunkSearchSpec:
        """``search`` as ``create`` takes it (a ``ChunkSearchSpec``, or a dict of its fields),
        as a ``ChunkSearchSpec``: an ``InputError`` names an unknown or bad option."""
        return _search_spec(search)

    @classmethod
    def create(
        cls,
        connection: DiscoveryEngineConnection,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        search: ChunkSearchSpec | SearchOptions = ChunkSearchSpec(),
        **options: Unpack[SummaryOptions],
    ) -> DiscoveryEngineSearchSummary:
        """The summaries of ``engine_id`` or ``data_store_id`` (exactly one) over
        ``connection``; ``search`` the search options (a ``ChunkSearchSpec`` or a dict of its
        fields: filter, mode, boosts, ...), ``options`` the fields of ``SummarySpec``
        (``result_count``, ``include_citations``, the ``ignore_*`` flags, ...), with its
        defaults."""
        target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        return cls(connection, target, SummarySpec(**options), cls.search_spec(search))

    @classmethod
    def connect(
        cls, **arguments: Unpack[DiscoveryEngineSearchSummaryArgs]
    ) -> DiscoveryEngineSearchSummary:
        """``create`` over a new connection: ``arguments`` are ``DiscoveryEngineConnection
        .create``'s and ``create``'s, in one set (as the framework components take them)."""
        connection, rest = connect_arguments(arguments)
        return cls.create(connection, **rest)

    def answer(self, query: str) -> GroundedAnswer:
        """The search summary of ``query``."""
        return search_summary(
            self.connection.clients,
            self.target,
            query,
            self.spec,
            self.search,
            self.connection.call_options,
        )

    async def aanswer(self, query: str) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        return await asearch_summary(
            self.connection.clients,
            self.target,
            query,
            self.spec,
            self.search,
            self.connection.call_options,
        )

    def stream(self, query: str) -> Iterator[AnswerStreamItem]:
        """``answer`` in the shape of an answer stream (a search's summary does not stream: the
        whole text comes at once)."""
        yield from whole_answer(self.answer(query))

    async def astream(self, query: str) -> AsyncIterator[AnswerStreamItem]:
        """Async ``stream``, on Google's async client."""
        for item in whole_answer(await self.aanswer(query)):
            yield item

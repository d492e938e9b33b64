"""``DiscoveryEngineSearchSummary``: a Discovery Engine ``Search`` with
``content_search_spec.summary_spec``, its summary as a ``GroundedAnswer`` (citations with string
and UTF-8 byte spans, the cited search results as references, ``skipped_reasons``), so that the
views, ``answer_metadata`` and the frameworks' answer outputs work on it as on an answer.

>>> summarizing = DiscoveryEngineSearchSummary(
...     DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123"),
...     data_store_id="python-docs",
...     result_count=3,
... )
>>> summarizing.spec.result_count, summarizing.spec.include_citations
(3, True)
>>> summarizing.answer("How do I open a file?").answer_text  # doctest: +SKIP
'The open() function returns a file object ...'
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from google.cloud import discoveryengine_v1 as de

from grounding_core._checks import check_count, check_fields
from grounding_core._clients import DiscoveryEngineConnection, DiscoveryEngineConnectionArgs
from grounding_core._convert import enum_name, segments, skipped_reasons, unique_names
from grounding_core._errors import InputError, translate_errors
from grounding_core._records import AnswerCitation, GroundedAnswer, SourceChunk
from grounding_core._settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG

from .discovery_engine import DiscoveryEngineTargetArgs, search_request
from .results import afirst_pages, chunks_from_results
from .specs import ChunkSearchSpec, SearchOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

# SummarySpec.summary_result_count: "At most 10 results for documents mode, or 50 for chunks
# mode, can be used to generate a summary."
MAX_SUMMARY_RESULTS_DOCUMENTS = 10
MAX_SUMMARY_RESULTS_CHUNKS = 50
# The count of Google's search sample and of the "Get search summaries" page's example.
DEFAULT_SUMMARY_RESULT_COUNT = 5

_MAX_RESULTS = {"chunks": MAX_SUMMARY_RESULTS_CHUNKS, "documents": MAX_SUMMARY_RESULTS_DOCUMENTS}


@dataclass(frozen=True, slots=True)
class SummarySpec:
    """Options of a search summary (Google's ``SummarySpec`` field docs).

    ``result_count``: the top results the summary is drawn from (1..50 in chunk mode, 1..10
    in documents mode; default 5). ``include_citations`` (default true, unlike Google's false:
    citations are the point here) asks for citation spans and in-line numbers. The
    ``ignore_*`` flags skip a summary for adversarial, non-summary-seeking (chit-chat,
    navigational) and jail-breaking queries, or results of low relevance. ``preamble``
    (``model_prompt_spec``), ``language_code``, ``model_version`` (``model_spec.version``:
    ``stable``, ``preview``) and ``use_semantic_chunks`` are passed on as they are.

    >>> SummarySpec(result_count=0)
    Traceback (most recent call last):
    ...
    grounding_core._errors.InputError: result_count must be between 1 and 50, got 0
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
        check_fields(self)
        check_count(
            "result_count", self.result_count, minimum=1, maximum=max(_MAX_RESULTS.values())
        )


class SummaryOptions(TypedDict, total=False):
    """The fields of ``SummarySpec`` as keyword arguments (``**options``; any may be left out)."""

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


class DiscoveryEngineSearchSummaryArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, SummaryOptions, total=False
):
    """Every keyword argument of a search summary in one set, as the framework components take
    them: the connection's, the target's, the summary options and ``search``."""

    search: ChunkSearchSpec | SearchOptions


def search_spec(search: ChunkSearchSpec | SearchOptions) -> ChunkSearchSpec:
    """``search`` as a ``ChunkSearchSpec`` (a dict is its fields), validated; an ``InputError``
    names an unknown or bad option."""
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


def _summary_reference(
    reference: Any, results: Mapping[tuple[str, str], SourceChunk]
) -> SourceChunk:
    """The search result a summary's reference names (a chunk result with the cited content),
    else a record of its own, named after the document."""
    contents = [c.content for c in reference.chunk_contents]
    for content in contents:
        found = results.get((reference.document, content))
        if found is not None:
            return found
    return SourceChunk(
        name=reference.document,
        content="\n\n".join(contents),
        document_id=reference.document.rpartition("/")[2],
        document_name=reference.document,
        uri=reference.uri,
        title=reference.title,
        page_identifier=", ".join(
            c.page_identifier for c in reference.chunk_contents if c.page_identifier
        ),
    )


def summary_answer(response: Any) -> GroundedAnswer:
    """The ``summary`` of a ``SearchResponse`` (raw pb) as a record: its text is
    ``summary_with_metadata.summary`` (the text the citation spans index; ``summary_text``
    carries in-line ``[n]`` markers), else ``summary_text`` (a skipped summary's message)."""
    summary = response.summary
    metadata = summary.summary_with_metadata
    text = metadata.summary if summary.HasField("summary_with_metadata") else summary.summary_text
    chunks = chunks_from_results(r for r in response.results if r.HasField("chunk"))
    by_content = {(c.document_name, c.content): c for c in chunks}
    references = unique_names([_summary_reference(r, by_content) for r in metadata.references])
    cited = segments(
        text,
        metadata.citation_metadata.citations,
        what="summary citations",
        indices=lambda item: tuple(s.reference_index for s in item.sources),
        references=references,
    )
    reasons = summary.summary_skipped_reasons
    return GroundedAnswer(
        answer_text=text,
        citations=tuple(AnswerCitation(**fields) for _, fields in cited),
        references=references,
        skipped_reasons=skipped_reasons(
            text, (enum_name(summary, "summary_skipped_reasons", r) for r in reasons)
        ),
    )


class DiscoveryEngineSearchSummary:
    """Search summaries of an engine or a data store, as ``GroundedAnswer`` records (the
    methods of ``DiscoveryEngineAnswerQuery``, so that the frameworks wrap both alike);
    ``search``: a ``ChunkSearchSpec`` or a dict of its fields (its ``k`` is not used: the
    summary reads one page of ``result_count`` results); ``options``: ``SummarySpec``'s fields.
    """

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        engine_id: str | None = None,
        data_store_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        search: ChunkSearchSpec | SearchOptions = ChunkSearchSpec(),
        **options: Unpack[SummaryOptions],
    ) -> None:
        self.connection = connection
        self.target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        self.spec = SummarySpec(**options)
        self.search = search_spec(search)
        _check_mode(self.spec, self.search)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(serving_config={self.target.serving_config_path!r}, "
            f"result_count={self.spec.result_count}, endpoint={self.connection.endpoint!r})"
        )

    def _request(self, query: str) -> Any:
        message = search_request(self.target, query, self.search)
        spec, summary = message.content_search_spec.summary_spec, self.spec
        message.page_size = spec.summary_result_count = summary.result_count
        spec.include_citations = summary.include_citations
        spec.ignore_adversarial_query = summary.ignore_adversarial_query
        spec.ignore_non_summary_seeking_query = summary.ignore_non_summary_seeking_query
        spec.ignore_low_relevant_content = summary.ignore_low_relevant_content
        spec.ignore_jail_breaking_query = summary.ignore_jail_breaking_query
        spec.model_prompt_spec.preamble = summary.preamble
        spec.language_code = summary.language_code
        spec.model_spec.version = summary.model_version
        spec.use_semantic_chunks = summary.use_semantic_chunks
        return de.SearchRequest.wrap(message)

    def answer(self, query: str) -> GroundedAnswer:
        """The search summary of ``query``."""
        request = self._request(query)
        with translate_errors("Search", self.target.serving_config_path):
            client = self.connection.client(de.SearchServiceClient)
            pager = client.search(request=request, **self.connection.call_options.call_kwargs())
            response = next(iter(pager.pages))
        return summary_answer(type(response).pb(response))

    async def aanswer(self, query: str) -> GroundedAnswer:
        """Async ``answer``, on Google's async client."""
        request = self._request(query)
        with translate_errors("Search", self.target.serving_config_path):
            client = self.connection.async_client(de.SearchServiceAsyncClient)
            pager = await client.search(
                request=request, **self.connection.call_options.async_call_kwargs()
            )
            response = (await afirst_pages(pager.pages, 0))[0]
        return summary_answer(type(response).pb(response))

    def stream(self, query: str) -> Iterator[str | GroundedAnswer]:
        """``answer`` as an answer stream (a summary comes whole)."""
        yield from self.answer(query).stream()

    async def astream(self, query: str) -> AsyncIterator[str | GroundedAnswer]:
        """Async ``stream``, on Google's async client."""
        for item in (await self.aanswer(query)).stream():
            yield item

"""``SearchResponse.Summary`` messages, and the ``SummarySpec`` of a request as plain values.

Citation spans are UTF-8 bytes, end exclusive, into ``summary_with_metadata.summary`` (the field
doc says "measured in bytes/unicode"; the emulator counts bytes, as every other offset of these
APIs does). ``CitationSource.reference_index`` is 0-based into ``references``; a reference's
``document`` is the full ``Document.name``; ``chunk_contents`` are the chunks the summary read.
"""

from __future__ import annotations

from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.answer.summary import GeneratedSummary, SummaryParams
from grounding_emulator.search.engine import Mode
from grounding_emulator.wire.messages.common import ByteOffsets, ChunkNames

__all__ = ["search_summary", "summary_params"]

Summary = de.SearchResponse.Summary.pb()


def summary_params(query: str, spec: Any, mode: Mode) -> SummaryParams:
    """A ``ContentSearchSpec.SummarySpec`` (raw pb) of a search for ``query`` in ``mode``."""
    return SummaryParams(
        query=query,
        mode=mode,
        result_count=spec.summary_result_count,
        include_citations=spec.include_citations,
        ignore_adversarial_query=spec.ignore_adversarial_query,
        ignore_non_summary_seeking_query=spec.ignore_non_summary_seeking_query,
        ignore_low_relevant_content=spec.ignore_low_relevant_content,
        ignore_jail_breaking_query=spec.ignore_jail_breaking_query,
        use_semantic_chunks=spec.use_semantic_chunks,
    )


def search_summary(summary: GeneratedSummary, names: ChunkNames) -> Any:
    """The ``SearchResponse.Summary`` of a generated (or skipped) summary."""
    message = Summary(summary_text=summary.text)
    for reason in summary.skipped_reasons:
        message.summary_skipped_reasons.append(Summary.SummarySkippedReason.Value(reason))
    if summary.skipped_reasons:
        return message
    metadata = message.summary_with_metadata
    metadata.summary = summary.summary
    offsets = ByteOffsets(summary.summary)
    for span in summary.citations:
        citation = metadata.citation_metadata.citations.add()
        citation.start_index, citation.end_index = offsets.byte_span(span.start, span.end)
        for index in span.reference_indices:
            citation.sources.add(reference_index=index)
    for reference in summary.references:
        document = reference.document
        added = metadata.references.add(
            title=document.title, document=names.document(document), uri=document.uri
        )
        for hit in reference.hits:
            page = str(hit.chunk.page_start) if hit.chunk.page_start is not None else ""
            added.chunk_contents.add(content=hit.chunk.content, page_identifier=page)
    return message

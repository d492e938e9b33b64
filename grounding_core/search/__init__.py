"""Search: Discovery Engine (Vertex AI Search) chunk search (``discovery_engine``), Developer
Knowledge chunk search (``developer_knowledge``), search summaries (``summaries``), the search
options (``specs``) and how a response becomes records (``results``); the records a result
holds besides its ``SourceChunk``, importable from here."""

from grounding_core._records import (
    AnnotationMetadata,
    FacetValue,
    PageSpan,
    RankSignals,
    SearchFacet,
)

__all__ = ["AnnotationMetadata", "FacetValue", "PageSpan", "RankSignals", "SearchFacet"]

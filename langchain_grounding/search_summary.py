"""``DiscoveryEngineSummary``: a Discovery Engine search summary as a Runnable."""

from __future__ import annotations

from pydantic import PrivateAttr, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    DEFAULT_SUMMARY_RESULT_COUNT,
    ChunkSearchSpec,
    DiscoveryEngineSearchSummary,
    DiscoveryEngineTarget,
    SearchResultMode,
)

from ._connection import DiscoveryEngineSettings
from .answers import _Answering

__all__ = ["DiscoveryEngineSummary"]


class DiscoveryEngineSummary(DiscoveryEngineSettings, _Answering):
    """The summary of a Discovery Engine search (``content_search_spec.summary_spec``): query
    in, summary with citations out, in the output of ``DiscoveryEngineAnswer``.

    Key init args:
        engine_id or data_store_id; project_id, location, collection, serving_config_id;
        result_count (the top results summarized: 1..50 in chunk mode, 1..10 in documents
        mode), include_citations, ignore_adversarial_query, ignore_non_summary_seeking_query,
        ignore_low_relevant_content, ignore_jail_breaking_query, preamble, language_code,
        model_version, use_semantic_chunks; filter and search_mode of the search; and the
        connection fields.

    Usage:
        .. code-block:: python

            from langchain_grounding import DiscoveryEngineSummary

            summarizer = DiscoveryEngineSummary(project_id="my-project", engine_id="docs-app")
            out = summarizer.invoke("How do I open a file?")
            out["answer"], out["citations"][0]["start"], out["documents"][0].metadata["source"]

    Input: a str, or a dict with ``query``/``question``/``input``. Output: see
    ``answer_output`` (``answer`` is the summary text, ``documents`` the cited search results,
    ``skipped_reasons`` non-empty when the service skipped the summary).
    """

    data_store_id: str | None = None
    engine_id: str | None = None
    collection: str | None = DEFAULT_COLLECTION
    serving_config_id: str = DEFAULT_SERVING_CONFIG
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
    filter: str = ""
    search_mode: SearchResultMode = "chunks"

    _answering: DiscoveryEngineSearchSummary = PrivateAttr()

    @model_validator(mode="after")
    def _build(self) -> DiscoveryEngineSummary:
        self._answering = DiscoveryEngineSearchSummary.create(
            self.connection,
            data_store_id=self.data_store_id,
            engine_id=self.engine_id,
            collection=self.collection,
            serving_config_id=self.serving_config_id,
            search=ChunkSearchSpec(filter=self.filter, search_mode=self.search_mode),
            result_count=self.result_count,
            include_citations=self.include_citations,
            ignore_adversarial_query=self.ignore_adversarial_query,
            ignore_non_summary_seeking_query=self.ignore_non_summary_seeking_query,
            ignore_low_relevant_content=self.ignore_low_relevant_content,
            ignore_jail_breaking_query=self.ignore_jail_breaking_query,
            preamble=self.preamble,
            language_code=self.language_code,
            model_version=self.model_version,
            use_semantic_chunks=self.use_semantic_chunks,
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store searched."""
        return self._answering.target

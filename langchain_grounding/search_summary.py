"""``DiscoveryEngineSummary``: a Discovery Engine search summary as a Runnable."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, InstanceOf, PrivateAttr, field_validator, model_validator

from grounding_core import (
    DEFAULT_COLLECTION,
    DEFAULT_SERVING_CONFIG,
    ChunkSearchSpec,
    DiscoveryEngineSearchSummary,
    DiscoveryEngineTarget,
    SummarySpec,
)
from grounding_core.peers import PEER_SUMMARY_ARGUMENTS, PeerTable
from grounding_core.search.discovery_engine import DiscoveryEngineTargetArgs
from grounding_core.search.summaries import SummaryOptions, search_spec

from ._connection import DiscoveryEngineSettings
from ._options import option_values, spec_default
from .answers import _Answering

__all__ = ["DiscoveryEngineSummary"]


def _default(name: str) -> Any:
    return spec_default(SummarySpec, name)


class DiscoveryEngineSummary(DiscoveryEngineSettings, _Answering):
    """The summary of a Discovery Engine search (``content_search_spec.summary_spec``): query
    in, summary with citations out, in the output of ``DiscoveryEngineAnswer``.

    Key init args:
        engine_id or data_store_id; project_id, location, collection, serving_config_id.
        The summary options, every field of ``grounding_core.SummarySpec`` (a field of its
        name, with the spec's default and limits): result_count (the top results summarized:
        1..50 in chunk mode, 1..10 in documents mode), include_citations,
        ignore_adversarial_query, ignore_non_summary_seeking_query,
        ignore_low_relevant_content, ignore_jail_breaking_query, preamble, language_code,
        model_version, use_semantic_chunks.
        search: the search's options, a ``grounding_core.ChunkSearchSpec`` or a dict of its
        fields, named as ``DiscoveryEngineRetriever``'s fields (``{"filter": ...,
        "search_mode": "documents", ...}``; ``k`` is not used: ``result_count`` results are
        read). And the connection fields.

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

    # The peer's names (its VertexAISearchSummaryTool), translated with a warning.
    _peer_arguments: ClassVar[PeerTable] = PEER_SUMMARY_ARGUMENTS

    data_store_id: str | None = None
    engine_id: str | None = None
    collection: str | None = DEFAULT_COLLECTION
    serving_config_id: str = DEFAULT_SERVING_CONFIG
    # The summary options: SummarySpec's fields, with its defaults.
    result_count: int = Field(
        default=_default("result_count"), description="results summarized (1..50, 1..10)"
    )
    include_citations: bool = Field(
        default=_default("include_citations"), description="citation spans and numbers"
    )
    ignore_adversarial_query: bool = Field(
        default=_default("ignore_adversarial_query"), description="no summary of those"
    )
    ignore_non_summary_seeking_query: bool = Field(
        default=_default("ignore_non_summary_seeking_query"), description="nor of chit-chat"
    )
    ignore_low_relevant_content: bool = Field(
        default=_default("ignore_low_relevant_content"), description="nor of weak results"
    )
    ignore_jail_breaking_query: bool = Field(
        default=_default("ignore_jail_breaking_query"), description="nor of jail-breaking"
    )
    preamble: str = Field(default=_default("preamble"), description="model_prompt_spec")
    language_code: str = Field(
        default=_default("language_code"), description="the summary's language"
    )
    model_version: str = Field(
        default=_default("model_version"), description="e.g. stable, preview"
    )
    use_semantic_chunks: bool = Field(
        default=_default("use_semantic_chunks"), description="summarize semantic chunks"
    )
    search: InstanceOf[ChunkSearchSpec] = Field(
        default_factory=ChunkSearchSpec,
        description="the search's options: a ChunkSearchSpec or a dict of its fields",
    )

    _answering: DiscoveryEngineSearchSummary = PrivateAttr()

    @field_validator("search", mode="before")
    @classmethod
    def _search_spec(cls, value: Any) -> Any:
        return search_spec(value)

    @model_validator(mode="after")
    def _build(self) -> DiscoveryEngineSummary:
        self._answering = DiscoveryEngineSearchSummary(
            self.connection,
            **option_values(self, DiscoveryEngineTargetArgs),
            search=self.search,
            **option_values(self, SummaryOptions),
        )
        return self

    @property
    def target(self) -> DiscoveryEngineTarget:
        """The engine or data store searched."""
        return self._answering.target

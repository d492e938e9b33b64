"""Chunk search as one component: a connection, what to search and how, the sync and async call.

``DiscoveryEngineChunkSearch`` (a data store or engine, ``Search`` in chunk or document mode)
and ``DeveloperKnowledgeChunkSearch`` (``SearchDocumentChunks``) hold everything that is not
I/O, as httpx's ``BaseClient`` does for its two clients; ``search`` and ``asearch`` make the call
(``asearch`` on Google's async client). The LangChain and LlamaIndex retrievers wrap one of them
and only turn the ``SourceChunk`` records into their framework's objects.

``create`` builds a component from plain settings over a connection (whose ``create`` checks
the project, location, timeout and retry policy) and checks them all at once: a bad id or an
incomplete target raises ``ConfigurationError``, a search option beyond the API's limits
``InputError`` (both ``ValueError``, both naming the field).

>>> search = DiscoveryEngineChunkSearch.create(
...     DiscoveryEngineConnection.create(project_id="p", emulator_host="localhost:8123"),
...     data_store_id="docs",
... )
>>> search.target.serving_config_path  # doctest: +ELLIPSIS
'projects/p/locations/global/collections/default_collection/dataStores/docs/servingConfigs/...'
>>> search.spec.k, search.replace(k=2).spec.k
(10, 2)
>>> search.search("what is a generator?", k=2)  # doctest: +SKIP
[SourceChunk(name='projects/p/.../chunks/c0', content='Generators are ...', ...), ...]
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from .connection import (
    DeveloperKnowledgeConnection,
    DiscoveryEngineConnection,
    DiscoveryEngineConnectionArgs,
)
from .records import SearchResults, SourceChunk
from .search import (
    asearch_developer_knowledge,
    asearch_results,
    search_developer_knowledge,
    search_results,
)
from .settings import DEFAULT_COLLECTION, DEFAULT_SERVING_CONFIG, DiscoveryEngineTarget
from .specs import ChunkSearchSpec, DeveloperKnowledgeSearchSpec, SearchOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "DeveloperKnowledgeChunkSearch",
    "DiscoveryEngineChunkSearch",
    "DiscoveryEngineChunkSearchArgs",
    "DiscoveryEngineTargetArgs",
]


class DiscoveryEngineTargetArgs(TypedDict, total=False):
    """The keyword arguments that name what a Discovery Engine component calls (those of
    ``DiscoveryEngineConnection.target``): ``engine_id`` or ``data_store_id``, ``collection``,
    ``serving_config_id``."""

    engine_id: str | None
    data_store_id: str | None
    collection: str | None
    serving_config_id: str


class DiscoveryEngineChunkSearchArgs(
    DiscoveryEngineConnectionArgs, DiscoveryEngineTargetArgs, SearchOptions, total=False
):
    """Every keyword argument of a Discovery Engine search in one set: the connection's
    (``DiscoveryEngineConnection.create``), the target's and the search options
    (``SearchOptions``), as the framework components take them."""


SpecT = TypeVar("SpecT", ChunkSearchSpec, DeveloperKnowledgeSearchSpec)


def connect_arguments(
    arguments: Mapping[str, Any],
) -> tuple[DiscoveryEngineConnection, dict[str, Any]]:
    """A new connection from the connection's keys of ``arguments`` (those of
    ``DiscoveryEngineConnectionArgs``), and the other arguments: what each component's
    ``connect`` hands to its ``create``."""
    keys = DiscoveryEngineConnectionArgs.__optional_keys__
    connection = DiscoveryEngineConnection.create(
        **{k: v for k, v in arguments.items() if k in keys}
    )
    return connection, {k: v for k, v in arguments.items() if k not in keys}


def spec_for_call(spec: SpecT, k: int | None, filter: str | None) -> SpecT:
    """``spec`` with the per-call ``k`` and ``filter`` that were given (validated again)."""
    if k is None and filter is None:
        return spec
    return dataclasses.replace(
        spec, k=spec.k if k is None else k, filter=spec.filter if filter is None else filter
    )


@dataclass(frozen=True, slots=True)
class DiscoveryEngineChunkSearch:
    """Search of a Discovery Engine (Vertex AI Search) data store or engine.

    ``search(query, k=..., filter=...)`` returns the top chunks as ``SourceChunk`` records;
    ``k`` and ``filter`` default to the spec's. ``search_results`` returns them in a
    ``SearchResults`` with what the response says of the search as a whole (total size,
    ``corrected_query``, query expansion, facets).
    """

    connection: DiscoveryEngineConnection
    target: DiscoveryEngineTarget
    spec: ChunkSearchSpec

    @classmethod
    def create(
        cls,
        connection: DiscoveryEngineConnection,
        *,
        data_store_id: str | None = None,
        engine_id: str | None = None,
        collection: str | None = DEFAULT_COLLECTION,
        serving_config_id: str = DEFAULT_SERVING_CONFIG,
        **options: Unpack[SearchOptions],
    ) -> DiscoveryEngineChunkSearch:
        """The search of ``data_store_id`` or ``engine_id`` (exactly one) over ``connection``;
        ``options`` are the fields of ``ChunkSearchSpec`` (``k``, ``filter``, ``search_mode``,
        ...), with its defaults."""
        target = connection.target(
            data_store_id=data_store_id,
            engine_id=engine_id,
            collection=collection,
            serving_config_id=serving_config_id,
        )
        return cls(connection, target, ChunkSearchSpec(**options))  # type: ignore[arg-type]

    @classmethod
    def connect(
        cls, **arguments: Unpack[DiscoveryEngineChunkSearchArgs]
    ) -> DiscoveryEngineChunkSearch:
        """``create`` over a new connection: ``arguments`` are ``DiscoveryEngineConnection
        .create``'s and ``create``'s, in one set (as the framework components take them)."""
        connection, rest = connect_arguments(arguments)
        return cls.create(connection, **rest)

    def replace(self, **changes: Any) -> DiscoveryEngineChunkSearch:
        """A copy whose spec has some options changed (validated again)."""
        return dataclasses.replace(self, spec=dataclasses.replace(self.spec, **changes))

    def search(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """The top ``k`` chunks for ``query``."""
        return list(self.search_results(query, k=k, filter=filter).chunks)

    async def asearch(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """Async ``search``, on Google's async client."""
        return list((await self.asearch_results(query, k=k, filter=filter)).chunks)

    def search_results(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> SearchResults:
        """The top ``k`` chunks for ``query`` and the response-level values."""
        return search_results(
            self.connection.clients,
            self.target,
            query,
            spec_for_call(self.spec, k, filter),
            self.connection.call_options,
        )

    async def asearch_results(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> SearchResults:
        """Async ``search_results``, on Google's async client."""
        return await asearch_results(
            self.connection.clients,
            self.target,
            query,
            spec_for_call(self.spec, k, filter),
            self.connection.call_options,
        )


@dataclass(frozen=True, slots=True)
class DeveloperKnowledgeChunkSearch:
    """Search of Google's developer documentation (Developer Knowledge ``SearchDocumentChunks``).

    ``filter``: AIP-160 on ``data_source``, ``uri``, ``update_time``, ``content_length_bytes``
    (at most 500 characters); ``k`` and ``filter`` can change per call.
    """

    connection: DeveloperKnowledgeConnection
    spec: DeveloperKnowledgeSearchSpec

    @classmethod
    def create(
        cls, connection: DeveloperKnowledgeConnection, **options: Any
    ) -> DeveloperKnowledgeChunkSearch:
        """The search over ``connection``; ``options`` are the fields of
        ``DeveloperKnowledgeSearchSpec`` (``k``, ``filter``), with its defaults."""
        return cls(connection, DeveloperKnowledgeSearchSpec(**options))

    def replace(self, **changes: Any) -> DeveloperKnowledgeChunkSearch:
        """A copy whose spec has some options changed (validated again)."""
        return dataclasses.replace(self, spec=dataclasses.replace(self.spec, **changes))

    def search(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """The top ``k`` chunks for ``query``."""
        return search_developer_knowledge(
            self.connection.clients,
            query,
            spec_for_call(self.spec, k, filter),
            self.connection.call_options,
        )

    async def asearch(
        self, query: str, *, k: int | None = None, filter: str | None = None
    ) -> list[SourceChunk]:
        """Async ``search``, on Google's async client."""
        return await asearch_developer_knowledge(
            self.connection.clients,
            query,
            spec_for_call(self.spec, k, filter),
            self.connection.call_options,
        )

"""``DiscoveryEngineRanking``: the Ranking API (``RankService.Rank``): records scored against a
query by Google's semantic ranker, sync and async, any number of records: Google ranks "At
most 200 records" a request (``MAX_RANK_RECORDS``), more are sent in batches (concurrently in
``arank``) and merged by score, which Google computes for each record against the query alone.

>>> connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:8123")
>>> ranking = DiscoveryEngineRanking(connection, top_n=2)
>>> ranking.ranking_config
'projects/p/locations/global/rankingConfigs/default_ranking_config'
>>> records = [RankingRecord(title="Gemini", content="A large language model by Google.")]
>>> ranking.rank("What is Gemini?", records)[0].score  # doctest: +SKIP
0.67
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.cloud import discoveryengine_v1 as de

from ._checks import check_fields, check_query, check_request_size, check_user_labels
from ._clients import DiscoveryEngineConnection, GivenClient
from ._errors import ConfigurationError, InputError, translate_errors
from ._settings import DEFAULT_RANKING_CONFIG

MAX_RANK_RECORDS = 200
"""``RankRequest.records``: "At most 200 records to rank"."""

DEFAULT_TITLE_FIELDS = ("title",)
"""The metadata keys whose values make a record's title: what our retrievers put there."""


def record_title(metadata: Mapping[str, Any], fields: Sequence[str] = DEFAULT_TITLE_FIELDS) -> str:
    """The title of a document or node for Rank: the non-empty values of ``fields`` in
    ``metadata``, joined by spaces."""
    return " ".join(str(metadata[key]) for key in fields if metadata.get(key) not in (None, ""))


@dataclass(frozen=True, slots=True)
class RankingRecord:
    """A record to rank: ``title`` and ``content`` (at least one; "otherwise an INVALID_ARGUMENT
    error is thrown"), and the caller's ``id`` (any string: not sent, given back)."""

    title: str = ""
    content: str = ""
    id: str = ""


@dataclass(frozen=True, slots=True)
class RankedRecord:
    """A ranked record: its position in the list given (``index``), its ``id`` and its
    ``score`` (0..1, rounded to 2 places by Google)."""

    index: int
    id: str
    score: float


@dataclass(frozen=True, slots=True)
class RankingSpec:
    """Options of a ranking: ``model`` (``None``: Google's default, ``semantic-ranker-512@latest``;
    e.g. ``semantic-ranker-default@latest``), ``top_n`` (``None``: every record) and
    ``user_labels`` (Google's label rules, ``check_user_labels``)."""

    model: str | None = None
    top_n: int | None = None
    user_labels: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.model is not None and not self.model.strip():
            raise InputError(
                "model is empty: give a ranking model, e.g. semantic-ranker-default@latest, "
                "or None for Google's default",
                field="model",
            )
        if self.top_n is not None and self.top_n < 1:
            raise InputError(
                f"top_n must be at least 1, got {self.top_n}: give how many records to keep, "
                "or None for every record",
                field="top_n",
                limit=1,
            )
        object.__setattr__(self, "user_labels", check_user_labels(self.user_labels))

    def __reduce__(self) -> tuple[Any, ...]:
        # A read-only mapping cannot be pickled or deep-copied: the labels go as a dict.
        return type(self), (self.model, self.top_n, dict(self.user_labels))


def _check_records(records: Sequence[object]) -> None:
    if not records:
        raise InputError("records is empty: give the records to rank", field="records")
    for index, record in enumerate(records):
        if not isinstance(record, RankingRecord):
            problem = f"must be a RankingRecord, got {type(record).__name__}"
        elif not record.title and not record.content:
            problem = "has neither a title nor a content: Rank needs at least one"
        else:
            continue
        raise InputError(f"records[{index}] {problem}", field="records")


def rank_requests(
    ranking_config: str,
    query: str,
    records: Sequence[RankingRecord],
    spec: RankingSpec = RankingSpec(),
) -> list[de.RankRequest]:
    """The ``RankRequest``s for ``records``: one per ``MAX_RANK_RECORDS``, each record's id its
    position (so that records without ids, or with the same id, come back right); ``top_n``
    goes with a single request (batches are cut after merging)."""
    query = check_query(query)
    _check_records(records)
    top_n = spec.top_n if spec.top_n is not None and len(records) <= MAX_RANK_RECORDS else 0
    requests = []
    for start in range(0, len(records), MAX_RANK_RECORDS):
        batch = records[start : start + MAX_RANK_RECORDS]
        request = de.RankRequest(
            ranking_config=ranking_config,
            model=spec.model or "",
            top_n=top_n,
            query=query,
            records=[
                de.RankingRecord(id=str(start + i), title=r.title, content=r.content)
                for i, r in enumerate(batch)
            ],
            ignore_record_details_in_response=True,  # the caller has them
            user_labels=dict(spec.user_labels),
        )
        check_request_size("Rank", de.RankRequest.pb(request))
        requests.append(request)
    return requests


_pb = de.RankResponse.pb


async def _apb(call: Any) -> Any:
    return _pb(await call)


def _ranked(
    responses: Sequence[Any], records: Sequence[RankingRecord], spec: RankingSpec
) -> list[RankedRecord]:
    """The raw ``RankResponse``s of ``records``' requests as ranked records, best first."""
    ranked = []
    for response in responses:
        for item in response.records:
            index = int(item.id)
            # A float on the wire (32 bits): read back at the places Google's scores have (2,
            # or 0.0001), so that 0.67 is 0.67.
            ranked.append(RankedRecord(index, records[index].id, round(item.score, 4)))
    ranked.sort(key=lambda r: (-r.score, r.index))
    return ranked[: spec.top_n]


class DiscoveryEngineRanking:
    """The Ranking API as one component (what the LangChain compressor and the LlamaIndex
    postprocessor wrap): ``ranking_config`` is an id in the connection's project and location
    (the attribute holds its resource name); ``client``: a Google ``RankServiceClient`` of yours
    (any API version, ``GivenClient``) to call instead of the connection's. A bad option raises
    ``ConfigurationError``."""

    def __init__(
        self,
        connection: DiscoveryEngineConnection,
        *,
        ranking_config: str = DEFAULT_RANKING_CONFIG,
        model: str | None = None,
        top_n: int | None = None,
        user_labels: Mapping[str, str] | None = None,
        client: Any = None,
    ) -> None:
        self.connection = connection
        self.client = None if client is None else GivenClient(client, "rank")
        self.ranking_config = connection.ranking_config_path(ranking_config)
        try:
            self.spec = RankingSpec(model=model, top_n=top_n, user_labels=user_labels or {})
        except InputError as exc:  # a setting, not a request
            raise ConfigurationError.of(exc) from exc

    def __repr__(self) -> str:
        config, endpoint = self.ranking_config, self.connection.endpoint
        return f"{type(self).__name__}(ranking_config={config!r}, endpoint={endpoint!r})"

    def rank(self, query: str, records: Sequence[RankingRecord]) -> list[RankedRecord]:
        """``records`` ranked against ``query``, best first (see the module docstring)."""
        requests = rank_requests(self.ranking_config, query, records, self.spec)
        with translate_errors("Rank", self.ranking_config):
            kwargs = self.connection.call_options.call_kwargs()
            if self.client is not None:
                responses = [self.client.call(r, de.RankResponse, **kwargs) for r in requests]
            else:
                client = self.connection.client(de.RankServiceClient)
                responses = [_pb(client.rank(request=r, **kwargs)) for r in requests]
        return _ranked(responses, records, self.spec)

    async def arank(self, query: str, records: Sequence[RankingRecord]) -> list[RankedRecord]:
        """Async ``rank``, on Google's async client (batches sent concurrently)."""
        requests = rank_requests(self.ranking_config, query, records, self.spec)
        with translate_errors("Rank", self.ranking_config):
            if self.client is not None:
                kwargs = self.connection.call_options.call_kwargs()
                calls = [self.client.acall(r, de.RankResponse, **kwargs) for r in requests]
            else:
                client = self.connection.async_client(de.RankServiceAsyncClient)
                kwargs = self.connection.call_options.async_call_kwargs()
                calls = [_apb(client.rank(request=r, **kwargs)) for r in requests]
            responses = await asyncio.gather(*calls)
        return _ranked(responses, records, self.spec)

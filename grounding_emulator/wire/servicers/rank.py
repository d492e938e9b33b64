"""``google.cloud.discoveryengine.{v}.RankService``: Rank ("Ranks a list of text records based
on the given input query"), as ``RankRequest``'s field docs and the page "Improve search and
RAG quality with ranking API" describe it.

- ``ranking_config``: ``projects/{p}/locations/{l}/rankingConfigs/default_ranking_config``
  (another config is ``NOT_FOUND``, as for grounding configs).
- ``records``: required, "At most 200 records to rank"; each needs a title or a content ("At
  least one of title or content should be set otherwise an INVALID_ARGUMENT error is thrown").
- ``model``: "It is set to semantic-ranker-512@latest by default if unspecified"; a
  ``semantic-ranker-*`` model name is accepted (Google's page lists the versions; which names it
  refuses it does not say).
- ``top_n``: "If this is unset or no bigger than zero, returns all results."
- ``ignore_record_details_in_response``: "the response will contain only record ID and score".
- ``user_labels``: checked as their field doc says (``wire/labels.py``).
- The response: "A list of records sorted by descending score" (``rank/scorer.py``).
- ``query``: its field doc says only "The query to use"; an empty one is refused here
  (``INVALID_ARGUMENT``): nothing can be ranked against it (docs/emulator.md).
"""

from __future__ import annotations

import re
from typing import Any

from google.cloud import discoveryengine_v1 as de

from grounding_emulator.errors import InvalidArgument, excerpt
from grounding_emulator.limits import DEFAULT_RANKING_MODEL, MAX_RANK_RECORDS
from grounding_emulator.rank.scorer import score_records
from grounding_emulator.wire.labels import check_labels
from grounding_emulator.wire.names import parse_ranking_config
from grounding_emulator.wire.servicers.registry import Servicer, discovery_engine, rpc
from grounding_emulator.wire.servicers.request_specs import check_query

__all__ = ["RankServicer"]

_RankResponse = de.RankResponse.pb()
_MODEL = re.compile(r"^semantic-ranker-[a-z0-9]+(?:-[0-9]{3})?(?:@latest)?$")


def _check(request: Any) -> str:
    """The model of a valid request; ``INVALID_ARGUMENT`` naming the field otherwise."""
    check_query(request.query, "query")
    if not request.query.strip():
        raise InvalidArgument(
            "query is empty: give the query to rank the records by", field="query"
        )
    count = len(request.records)
    if not count:
        raise InvalidArgument("records is required: give the records to rank", field="records")
    if count > MAX_RANK_RECORDS:
        raise InvalidArgument(
            f"records has {count} records; at most {MAX_RANK_RECORDS} can be ranked in one "
            "request: rank them in batches",
            field="records",
        )
    for index, record in enumerate(request.records):
        if not record.title and not record.content:
            raise InvalidArgument(
                f"records[{index}]: at least one of title or content should be set",
                field=f"records[{index}]",
            )
    model = request.model or DEFAULT_RANKING_MODEL
    if not _MODEL.match(model):
        raise InvalidArgument(
            f"model {excerpt(model)} is not a ranking model: use e.g. "
            f"{DEFAULT_RANKING_MODEL} or semantic-ranker-default@latest",
            field="model",
        )
    return model


class RankServicer(Servicer):
    """``google.cloud.discoveryengine.v1.RankService`` (module docstring)."""

    services = discovery_engine("RankService")

    @rpc("Rank", de.RankRequest.pb())
    def rank(self, request: Any) -> Any:
        """``Rank``: the records scored against the query, best first (``rank/scorer.py``;
        semantic when the backend's store has an embedder)."""
        parse_ranking_config(request.ranking_config)
        check_labels(request.user_labels)
        model = _check(request)
        records = request.records
        scored = score_records(
            request.query,
            [(r.title, r.content) for r in records],
            model,
            self.backend.store.embedder,
        )
        if request.top_n > 0:
            scored = scored[: request.top_n]
        response = _RankResponse()
        for item in scored:
            record = records[item.index]
            if request.ignore_record_details_in_response:
                response.records.add(id=record.id, score=item.score)
            else:
                response.records.add(
                    id=record.id, title=record.title, content=record.content, score=item.score
                )
        return response

"""``grounding_core.ranking``: the Ranking API (``RankService.Rank``).

Covers the records (``RankingRecord``, ``RankedRecord``), the options (``RankingSpec``: checks,
pickling), ``record_title``, the requests (``rank_requests``: batches of ``MAX_RANK_RECORDS``,
positions as ids, ``top_n`` only on a single request, the checks made before any call) and
``DiscoveryEngineRanking`` (its constructor, ``rank`` and ``arank`` on the session emulator:
best first, ties in the given order, batches merged by score, ``top_n`` cut after merging,
Google's errors translated).
"""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core import (
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    InputError,
    InvalidRequestError,
    NotFoundError,
    RankedRecord,
    RankingRecord,
    RankingSpec,
    ServiceUnavailableError,
)
from grounding_core.ranking import (
    DEFAULT_TITLE_FIELDS,
    MAX_RANK_RECORDS,
    rank_requests,
    record_title,
)

from .emulated import PROJECT, RETRYING

CONFIG = f"projects/{PROJECT}/locations/global/rankingConfigs/default_ranking_config"
QUERY = "What is Google Gemini?"
MODEL = "semantic-ranker-default@latest"
RECORDS = [
    RankingRecord("Gemini", "The Gemini zodiac symbol often depicts two figures.", id="zodiac"),
    RankingRecord("Gemini", "Gemini is a large language model created by Google.", id="model"),
    RankingRecord(content="Gemini is a constellation in the night sky.", id="model"),  # same id
]
# Google's API front end refuses requests over 10 MiB.
MAX_REQUEST_BYTES = 10 * 1024 * 1024
# 450 records: three requests of 200, 200 and 50, merged.
MANY = RECORDS * 150


# -- records, options, titles ------------------------------------------------------------------


def test_a_ranking_record_defaults_to_empty_strings_and_is_frozen():
    record = RankingRecord()
    assert (record.title, record.content, record.id) == ("", "", "")
    assert RankingRecord("T", "C", "i") == RankingRecord(title="T", content="C", id="i")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.title = "x"  # type: ignore[misc]


def test_a_ranked_record_holds_position_id_and_score():
    ranked = RankedRecord(2, "doc", 0.5)
    assert (ranked.index, ranked.id, ranked.score) == (2, "doc", 0.5)


def test_the_spec_defaults():
    spec = RankingSpec()
    assert (spec.model, spec.top_n, dict(spec.user_labels)) == (None, None, {})


@pytest.mark.parametrize(
    ("changes", "field", "limit", "words"),
    [
        (
            {"top_n": 0},
            "top_n",
            1,
            [
                "^top_n must be at least 1, got 0",
                ": give how many records to keep, or None for every record",
            ],
        ),
        ({"top_n": -1}, "top_n", 1, ["^top_n must be at least 1, got -1"]),
        ({"top_n": "2"}, "top_n", None, ["^RankingSpec.top_n must be an integer or None"]),
        ({"top_n": True}, "top_n", None, ["^RankingSpec.top_n must be an integer or None"]),
        (
            {"model": " "},
            "model",
            None,
            [
                f"^model is empty: give a ranking model, e.g. {MODEL}",
                f"{MODEL}, or None for Google's default",
            ],
        ),
        ({"model": ""}, "model", None, ["^model is empty"]),
        ({"model": 3}, "model", None, ["^RankingSpec.model must be a string or None"]),
        ({"user_labels": {"Bad": "x"}}, "user_labels", 63, ["^user_labels"]),
        ({"user_labels": ["x"]}, "user_labels", None, ["^user_labels must be a mapping"]),
    ],
)
def test_bad_options_are_refused_naming_the_field(changes, field, limit, words):
    with pytest.raises(InputError, match=words[0]) as info:
        RankingSpec(**changes)
    assert (info.value.field, info.value.limit) == (field, limit)
    for tail in words[1:]:  # the remedy ends the message
        assert str(info.value).endswith(tail)


def test_the_lowest_top_n_and_a_model_are_kept():
    spec = RankingSpec(model=MODEL, top_n=1, user_labels={"team": "a"})
    assert (spec.model, spec.top_n, dict(spec.user_labels)) == (MODEL, 1, {"team": "a"})


def test_the_spec_copies_its_labels_read_only_and_pickles():
    labels = {"team": "a"}
    spec = RankingSpec(model="m", top_n=2, user_labels=labels)
    labels["team"] = "b"
    assert dict(spec.user_labels) == {"team": "a"}
    with pytest.raises(TypeError):
        spec.user_labels["team"] = "c"  # type: ignore[index]
    copied = pickle.loads(pickle.dumps(spec))
    assert copied == spec
    assert (copied.model, copied.top_n, dict(copied.user_labels)) == ("m", 2, {"team": "a"})


@pytest.mark.parametrize(
    ("metadata", "fields", "title"),
    [
        ({"title": "Files"}, DEFAULT_TITLE_FIELDS, "Files"),
        ({"title": "Files", "section": "io"}, ("title", "section", "page"), "Files io"),
        ({"title": "", "h": None, "n": 0}, ("title", "h", "n"), "0"),
        ({"title": False, "h": "x"}, ("title", "h"), "False x"),
        ({"section": "io"}, DEFAULT_TITLE_FIELDS, ""),
        ({}, DEFAULT_TITLE_FIELDS, ""),
        ({"b": "2", "a": "1"}, ("a", "b"), "1 2"),  # in the order of the fields
        ({"title": "東京 🚀"}, ("title",), "東京 🚀"),
    ],
)
def test_record_title_joins_the_fields_that_have_a_value(metadata, fields, title):
    assert record_title(metadata, fields) == title


def test_the_default_title_field_is_title():
    assert DEFAULT_TITLE_FIELDS == ("title",)
    assert record_title({"title": "T", "name": "N"}) == "T"


# -- requests ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        (1, [1]),
        (MAX_RANK_RECORDS - 1, [199]),
        (MAX_RANK_RECORDS, [200]),
        (MAX_RANK_RECORDS + 1, [200, 1]),
        (2 * MAX_RANK_RECORDS, [200, 200]),
        (2 * MAX_RANK_RECORDS + 1, [200, 200, 1]),
    ],
)
def test_requests_batch_by_200_with_positions_as_ids(count, sizes):
    assert MAX_RANK_RECORDS == 200
    records = [RankingRecord(title=f"t{i}", content=f"c{i}", id="same") for i in range(count)]
    requests = rank_requests(CONFIG, "q", records, RankingSpec(top_n=3))
    assert [len(r.records) for r in requests] == sizes
    sent = [record for request in requests for record in request.records]
    assert [r.id for r in sent] == [str(i) for i in range(count)]
    assert [(r.title, r.content) for r in sent] == [(f"t{i}", f"c{i}") for i in range(count)]
    # top_n goes with a single request; batches are cut after merging.
    assert [r.top_n for r in requests] == ([3] if len(sizes) == 1 else [0] * len(sizes))


def test_a_request_carries_every_option():
    spec = RankingSpec(model=MODEL, top_n=2, user_labels={"team": "a"})
    (request,) = rank_requests(CONFIG, "  q  ", RECORDS, spec)
    assert request == de.RankRequest(
        ranking_config=CONFIG,
        model=MODEL,
        top_n=2,
        query="  q  ",
        records=[
            de.RankingRecord(id="0", title="Gemini", content=RECORDS[0].content),
            de.RankingRecord(id="1", title="Gemini", content=RECORDS[1].content),
            de.RankingRecord(id="2", title="", content=RECORDS[2].content),
        ],
        ignore_record_details_in_response=True,
        user_labels={"team": "a"},
    )


def test_a_request_with_the_default_spec_leaves_model_top_n_and_labels_unset():
    (request,) = rank_requests(CONFIG, "q", RECORDS[:1])
    assert (request.model, request.top_n, dict(request.user_labels)) == ("", 0, {})
    assert request.ignore_record_details_in_response is True


@pytest.mark.parametrize(
    ("records", "words"),
    [
        ([], r"^records is empty: give the records to rank"),
        ([RankingRecord()], r"records\[0\] has neither a title nor a content: Rank needs"),
        ([RankingRecord("a"), RankingRecord(id="x")], r"records\[1\] has neither"),
        (["text"], r"records\[0\] must be a RankingRecord, got str"),
        ([RankingRecord(content="a"), {"title": "t"}], r"records\[1\] must be a RankingRecord"),
    ],
)
def test_bad_records_are_refused_before_any_call(records, words):
    with pytest.raises(InputError, match=words) as info:
        rank_requests(CONFIG, "q", records)
    assert (info.value.field, info.value.limit) == ("records", None)


def test_a_title_alone_or_a_content_alone_is_a_record():
    (request,) = rank_requests(CONFIG, "q", [RankingRecord(title="t"), RankingRecord(content="c")])
    assert [(r.title, r.content) for r in request.records] == [("t", ""), ("", "c")]


@pytest.mark.parametrize("query", ["", "   ", "\n"])
def test_an_empty_query_is_refused(query):
    with pytest.raises(InputError, match="query is empty") as info:
        rank_requests(CONFIG, query, RECORDS)
    assert (info.value.field, info.value.limit) == ("query", None)


def test_a_request_over_ten_mib_is_refused_before_sending():
    big = [RankingRecord(content="x" * (MAX_REQUEST_BYTES // 2)) for _ in range(2)]
    with pytest.raises(InputError, match="Rank request") as info:
        rank_requests(CONFIG, "q", big)
    assert (info.value.field, info.value.limit) == ("request", MAX_REQUEST_BYTES)


# -- the component -----------------------------------------------------------------------------


def test_the_component_names_its_ranking_config_in_its_connections_location():
    connection = DiscoveryEngineConnection(project_id="p", emulator_host="localhost:1")
    ranking = DiscoveryEngineRanking(connection)
    assert ranking.connection is connection
    assert ranking.ranking_config == (
        "projects/p/locations/global/rankingConfigs/default_ranking_config"
    )
    assert ranking.spec == RankingSpec()
    assert repr(ranking) == (
        "DiscoveryEngineRanking(ranking_config='projects/p/locations/global/rankingConfigs/"
        "default_ranking_config', endpoint='localhost:1')"
    )
    europe = DiscoveryEngineConnection(project_id="p", location="eu", emulator_host="h:1")
    mine = DiscoveryEngineRanking(
        europe, ranking_config="mine", model=MODEL, top_n=3, user_labels={"team": "a"}
    )
    assert mine.ranking_config == "projects/p/locations/eu/rankingConfigs/mine"
    assert mine.spec == RankingSpec(model=MODEL, top_n=3, user_labels={"team": "a"})


@pytest.mark.parametrize(
    ("options", "field", "limit"),
    [
        ({"top_n": -1}, "top_n", 1),
        ({"model": ""}, "model", None),
        ({"user_labels": {"A": "b"}}, "user_labels", 63),
    ],
)
def test_a_bad_option_is_a_configuration_error_naming_it(options, field, limit):
    connection = DiscoveryEngineConnection(project_id="p", emulator_host="h:1")
    with pytest.raises(ConfigurationError, match=f"^{field}") as info:
        DiscoveryEngineRanking(connection, **options)
    assert (info.value.field, info.value.limit) == (field, limit)
    cause = info.value.__cause__
    assert isinstance(cause, InputError)
    assert (cause.field, cause.limit, str(cause)) == (field, limit, str(info.value))


def test_a_bad_ranking_config_id_is_a_configuration_error():
    connection = DiscoveryEngineConnection(project_id="p", emulator_host="h:1")
    with pytest.raises(ConfigurationError, match="ranking_config 'a/b'"):
        DiscoveryEngineRanking(connection, ranking_config="a/b")


@pytest.fixture
def ranking(connections):
    """A ranking on the session emulator, without retries."""
    return DiscoveryEngineRanking(connections[0], model=MODEL)


@pytest.fixture
async def aranking(emulator):
    """A ranking on the session emulator for async calls, without retries."""
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, retry=None
    )
    yield DiscoveryEngineRanking(connection, model=MODEL)
    await connection.aclose()


def _best_first(ranked):
    return sorted(ranked, key=lambda r: (-r.score, r.index))


async def test_rank_and_arank_give_the_records_best_first_with_their_ids(ranking, aranking):
    ranked = ranking.rank(QUERY, RECORDS)
    assert [(r.index, r.id) for r in ranked] == [(1, "model"), (2, "model"), (0, "zodiac")]
    assert all(type(r) is RankedRecord for r in ranked)
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)
    assert all(0 < r.score <= 1 for r in ranked)
    # Read back at Google's two places: 0.67, not float32's 0.6700000166.
    assert all(r.score == round(r.score, 2) for r in ranked)
    assert await aranking.arank(QUERY, RECORDS) == ranked


async def test_more_than_200_records_are_merged_by_score(ranking, aranking):
    merged = ranking.rank(QUERY, MANY)
    assert len(merged) == len(MANY)
    assert sorted(r.index for r in merged) == list(range(len(MANY)))
    assert merged == _best_first(merged)  # ties in the order given
    assert [r.index for r in merged[:150]] == [i for i in range(len(MANY)) if i % 3 == 1]
    assert {r.id for r in merged[:300]} == {"model"}
    assert {r.id for r in merged[300:]} == {"zodiac"}
    assert await aranking.arank(QUERY, MANY) == merged


@pytest.mark.parametrize(("records", "indices"), [(RECORDS, [1, 2]), (MANY, [1, 4])])
async def test_top_n_keeps_the_best_after_merging(connections, emulator, records, indices):
    top = DiscoveryEngineRanking(connections[0], model=MODEL, top_n=2)
    assert [r.index for r in top.rank(QUERY, records)] == indices
    connection = DiscoveryEngineConnection(project_id=PROJECT, emulator_host=emulator.address)
    try:
        atop = DiscoveryEngineRanking(connection, model=MODEL, top_n=2)
        assert [r.index for r in await atop.arank(QUERY, records)] == indices
    finally:
        await connection.aclose()


async def test_the_model_is_sent(ranking, aranking):
    with pytest.raises(InvalidRequestError, match="Rank"):
        DiscoveryEngineRanking(ranking.connection, model="gpt-4").rank(QUERY, RECORDS)
    with pytest.raises(InvalidRequestError, match="Rank"):
        await DiscoveryEngineRanking(aranking.connection, model="gpt-4").arank(QUERY, RECORDS)


async def test_a_missing_ranking_config_is_not_found_naming_it(ranking, aranking):
    missing = DiscoveryEngineRanking(ranking.connection, ranking_config="nope")
    named = f"^Rank on {CONFIG.replace('default_ranking_config', 'nope')} failed"
    with pytest.raises(NotFoundError, match=named):
        missing.rank(QUERY, RECORDS)
    amissing = DiscoveryEngineRanking(aranking.connection, ranking_config="nope")
    with pytest.raises(NotFoundError, match=named):
        await amissing.arank(QUERY, RECORDS)


async def test_the_connections_retry_is_used_by_both_methods(emulator):
    connection = DiscoveryEngineConnection(
        project_id=PROJECT, emulator_host=emulator.address, **RETRYING
    )
    try:
        ranking = DiscoveryEngineRanking(connection, model=MODEL)
        emulator.faults.fail("Rank", code="UNAVAILABLE", times=1)
        assert [r.index for r in ranking.rank(QUERY, RECORDS)] == [1, 2, 0]
        emulator.faults.fail("Rank", code="UNAVAILABLE", times=1)
        assert [r.index for r in await ranking.arank(QUERY, RECORDS)] == [1, 2, 0]
    finally:
        connection.close()
        await connection.aclose()


async def test_an_unavailable_service_is_translated(ranking, aranking, emulator):
    emulator.faults.fail("Rank", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="Rank"):
        ranking.rank(QUERY, RECORDS)
    emulator.faults.fail("Rank", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError, match="Rank"):
        await aranking.arank(QUERY, RECORDS)


async def test_bad_records_are_refused_by_both_methods_before_any_call(ranking, aranking):
    with pytest.raises(InputError, match="records is empty") as info:
        ranking.rank(QUERY, [])
    assert info.value.field == "records"
    with pytest.raises(InputError, match="query is empty") as info:
        await aranking.arank(" ", RECORDS)
    assert info.value.field == "query"

"""The Ranking API in the core: requests (batches of 200, ids as positions), the checks made
before a call, and rank/arank on Google's sync and async clients against the session emulator."""

import pickle

import pytest

from grounding_core import (
    MAX_RANK_RECORDS,
    ConfigurationError,
    DiscoveryEngineConnection,
    DiscoveryEngineRanking,
    InputError,
    NotFoundError,
    RankedRecord,
    RankingRecord,
    RankingSpec,
    ServiceUnavailableError,
    ranking_config_path,
)
from grounding_core.ranking import rank_requests

CONFIG = ranking_config_path("test-project")
QUERY = "What is Google Gemini?"
RECORDS = [
    RankingRecord("Gemini", "The Gemini zodiac symbol often depicts two figures.", id="zodiac"),
    RankingRecord("Gemini", "Gemini is a large language model created by Google.", id="model"),
    RankingRecord(content="Gemini is a constellation in the night sky.", id="model"),  # same id
]


def test_requests_batch_by_200_with_positions_as_ids():
    records = [RankingRecord(content=f"r{i}") for i in range(MAX_RANK_RECORDS + 1)]
    first, second = rank_requests(CONFIG, "q", records, RankingSpec(model="m", top_n=3))
    assert [len(first.records), len(second.records)] == [200, 1]
    assert (first.records[0].id, first.records[199].id, second.records[0].id) == ("0", "199", "200")
    assert first.top_n == second.top_n == 0  # cut after merging
    assert first.ignore_record_details_in_response is True
    assert first.model == "m"
    (single,) = rank_requests(CONFIG, "q", RECORDS, RankingSpec(top_n=2, user_labels={"team": "a"}))
    assert (single.top_n, single.model, dict(single.user_labels)) == (2, "", {"team": "a"})
    assert [r.title for r in single.records] == ["Gemini", "Gemini", ""]


@pytest.mark.parametrize(
    ("records", "words"),
    [
        ([], "records is empty"),
        ([RankingRecord()], "records[0] has neither a title nor a content"),
        (["text"], "records[0] must be a RankingRecord, got str"),
    ],
)
def test_bad_records_are_refused_before_any_call(records, words):
    with pytest.raises(InputError) as excinfo:
        rank_requests(CONFIG, "q", records)
    assert words in str(excinfo.value)
    assert excinfo.value.field == "records"


def test_bad_settings():
    with pytest.raises(InputError, match="top_n must be at least 1, got 0"):
        RankingSpec(top_n=0)
    with pytest.raises(InputError, match="model is empty"):
        RankingSpec(model=" ")
    with pytest.raises(InputError, match="user_labels"):
        RankingSpec(user_labels={"Bad": "x"})
    connection = DiscoveryEngineConnection.create(project_id="p", emulator_host="h:1")
    with pytest.raises(ConfigurationError, match="top_n must be at least 1"):
        DiscoveryEngineRanking.create(connection, top_n=-1)
    with pytest.raises(
        ConfigurationError, match=r"ranking_config 'a/b' is not a valid resource id"
    ):
        DiscoveryEngineRanking.create(connection, ranking_config="a/b")
    spec = RankingSpec(model="m", top_n=2, user_labels={"k": "v"})
    assert pickle.loads(pickle.dumps(spec)) == spec


@pytest.fixture
def ranking(emulator):
    connection = DiscoveryEngineConnection.create(
        project_id="test-project", emulator_host=emulator.address, retry=None
    )
    return DiscoveryEngineRanking.create(connection, model="semantic-ranker-default@latest")


async def test_rank_and_arank_on_the_emulator(ranking):
    ranked = ranking.rank(QUERY, RECORDS)
    assert [(r.index, r.id) for r in ranked] == [(1, "model"), (2, "model"), (0, "zodiac")]
    assert all(isinstance(r, RankedRecord) for r in ranked)
    assert ranked[0].score == round(ranked[0].score, 2)  # 0.67, not float32's 0.6700000166
    assert ranked == await ranking.arank(QUERY, RECORDS)
    many = RECORDS * 150  # 450 records: three requests, merged
    merged = ranking.rank(QUERY, many)
    assert len(merged) == 450
    assert [r.score for r in merged] == sorted((r.score for r in merged), reverse=True)
    assert {r.index for r in merged[:150]} == {i for i in range(450) if i % 3 == 1}
    assert merged == await ranking.arank(QUERY, many)
    top = DiscoveryEngineRanking(ranking.connection, ranking.ranking_config, RankingSpec(top_n=2))
    assert [r.index for r in top.rank(QUERY, many)] == [1, 4]


async def test_errors_are_translated(ranking, emulator):
    missing = DiscoveryEngineRanking(
        ranking.connection, CONFIG.replace("default_ranking_config", "nope")
    )
    with pytest.raises(NotFoundError, match="Rank"):
        missing.rank(QUERY, RECORDS)
    with pytest.raises(NotFoundError, match="Rank"):
        await missing.arank(QUERY, RECORDS)
    emulator.faults.fail("Rank", code="UNAVAILABLE", times=1)
    with pytest.raises(ServiceUnavailableError):
        ranking.rank(QUERY, RECORDS)


def test_record_title():
    from grounding_core import record_title

    assert record_title({"title": "Files"}) == "Files"
    assert record_title({"title": "", "h": None, "n": 0}, ("title", "h", "n")) == "0"
    assert record_title({}) == ""

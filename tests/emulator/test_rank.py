"""RankService/Rank through Google's clients: Google's own sample request, the documented
limits and errors, top_n and ignore_record_details_in_response."""

from __future__ import annotations

import pytest
from google.api_core import exceptions as core_exceptions
from google.cloud import discoveryengine_v1 as de
from google.cloud import discoveryengine_v1beta

from grounding_emulator.rank.scorer import MIN_SCORE, model_tokens, score_records
from tests.emulator.conftest import ONCE, assert_error, versioned_client

CONFIG = "projects/test-project/locations/global/rankingConfigs/default_ranking_config"
# The records of Google's rank sample (genappbuilder-rank).
SAMPLE = [
    de.RankingRecord(
        id="1",
        title="Gemini",
        content="The Gemini zodiac symbol often depicts two figures standing side-by-side.",
    ),
    de.RankingRecord(
        id="2",
        title="Gemini",
        content="Gemini is a cutting edge large language model created by Google.",
    ),
    de.RankingRecord(
        id="3",
        title="Gemini Constellation",
        content="Gemini is a constellation that can be seen in the night sky.",
    ),
]


@pytest.fixture(scope="module")
def rank_client(emulator):
    return versioned_client(de, "RankServiceClient", emulator.address)


def rank(client, records=SAMPLE, **fields):
    fields.setdefault("query", "What is Google Gemini?")
    request = de.RankRequest(ranking_config=CONFIG, records=records, **fields)
    return client.rank(request=request, **ONCE)


def test_googles_sample_request(rank_client):
    response = rank(rank_client, model="semantic-ranker-default@latest", top_n=10)
    assert [r.id for r in response.records] == ["2", "3", "1"]
    scores = [r.score for r in response.records]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)
    assert all(round(s, 4) == round(round(s, 2), 4) for s in scores)  # 2 decimal places
    best = response.records[0]
    assert (best.title, best.content) == (SAMPLE[1].title, SAMPLE[1].content)


def test_top_n_details_and_the_default_model(rank_client):
    (best,) = rank(rank_client, top_n=1).records
    assert best.id == "2"
    assert [r.id for r in rank(rank_client, top_n=0).records] == ["2", "3", "1"]
    bare = rank(rank_client, ignore_record_details_in_response=True).records
    assert [(r.id, r.title, r.content) for r in bare] == [
        ("2", "", ""),
        ("3", "", ""),
        ("1", "", ""),
    ]
    assert bare[0].score == best.score


def test_scores_depend_on_the_record_alone():
    one = score_records("open a file", [("Files", "Use open() to open a file.")], "m")
    many = score_records(
        "open a file",
        [("Noise", "Unrelated text about birds."), ("Files", "Use open() to open a file.")],
        "m",
    )
    assert many[0].index == 1
    assert many[0].score == one[0].score
    assert many[1].score == MIN_SCORE  # no evidence: the smallest score, never unset


def test_content_beyond_the_models_tokens_is_truncated():
    assert (
        model_tokens("semantic-ranker-512@latest"),
        model_tokens("semantic-ranker-default-003"),
    ) == (512, 512)
    assert (
        model_tokens("semantic-ranker-default-004")
        == model_tokens("semantic-ranker-fast@latest")
        == 1024
    )
    padding = "word " * 600
    late = score_records("lighthouse", [("", padding + "lighthouse")], "semantic-ranker-512@latest")
    early = score_records(
        "lighthouse", [("", "lighthouse " + padding)], "semantic-ranker-512@latest"
    )
    assert late[0].score == MIN_SCORE  # the term is past the 512th token
    assert early[0].score > 0.3
    wide = score_records(
        "lighthouse", [("", padding + "lighthouse")], "semantic-ranker-default-004"
    )
    assert wide[0].score > 0.3


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"records": []}, ["records is required"]),
        ({"records": [de.RankingRecord(id="x")]}, ["records[0]", "title or content"]),
        (
            {"records": [de.RankingRecord(id=str(i), content="x") for i in range(201)]},
            ["201 records", "at most 200"],
        ),
        ({"query": ""}, ["query is empty"]),
        ({"model": "gpt-4"}, ["model", "not a ranking model"]),
        ({"user_labels": {"Bad": "x"}}, ["user_labels"]),
    ],
)
def test_documented_errors(rank_client, fields, words):
    with pytest.raises(core_exceptions.InvalidArgument) as excinfo:
        rank(rank_client, **fields)
    assert_error(excinfo, core_exceptions.InvalidArgument, *words)


def test_exactly_200_records_and_the_config(rank_client):
    records = [de.RankingRecord(id=str(i), content=f"record {i} about files") for i in range(200)]
    assert len(rank(rank_client, records=records, query="files").records) == 200
    with pytest.raises(core_exceptions.NotFound):
        rank_client.rank(
            request=de.RankRequest(
                ranking_config=CONFIG.replace("default_ranking_config", "other"),
                query="q",
                records=SAMPLE,
            ),
            **ONCE,
        )
    with pytest.raises(core_exceptions.InvalidArgument, match="ranking_config"):
        rank_client.rank(request=de.RankRequest(ranking_config="nope", records=SAMPLE), **ONCE)


async def test_v1beta_and_async(emulator):
    beta = versioned_client(discoveryengine_v1beta, "RankServiceClient", emulator.address)
    records = [
        discoveryengine_v1beta.RankingRecord(id=r.id, title=r.title, content=r.content)
        for r in SAMPLE
    ]
    request = discoveryengine_v1beta.RankRequest(
        ranking_config=CONFIG, query="What is Google Gemini?", records=records
    )
    assert [r.id for r in beta.rank(request=request, **ONCE).records] == ["2", "3", "1"]
    client = versioned_client(de, "RankServiceAsyncClient", emulator.address, asynchronous=True)
    response = await client.rank(
        request=de.RankRequest(
            ranking_config=CONFIG, query="What is Google Gemini?", records=SAMPLE
        ),
        **ONCE,
    )
    assert [r.id for r in response.records] == ["2", "3", "1"]

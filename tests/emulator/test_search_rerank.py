"""The emulator's ``rerank_search`` option: Search, AnswerQuery and ConverseConversation rerank
their first results with the Rank scorer, checked against RankService itself through Google's
clients; off by default."""

from __future__ import annotations

import numpy as np
import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_core.cli import main
from grounding_emulator import CorpusStore, EmulatorServer
from grounding_emulator.corpus.builtin import BUILTIN_DATA_STORE
from grounding_emulator.search.engine import SearchParams, chunk_hits, search
from grounding_emulator.search.reranking import rerank
from tests.emulator.conftest import ONCE, serving_config, versioned_client

QUERY = "how do I catch several exceptions in one handler"
CONFIG = serving_config(BUILTIN_DATA_STORE)
RANKING = "projects/test-project/locations/global/rankingConfigs/default_ranking_config"


def _builtin() -> CorpusStore:
    store = CorpusStore(semantic=False)
    store.add_builtin()
    return store


@pytest.fixture(scope="module")
def reranking():
    """An emulator (built-in corpus, BM25) that reranks its first 10 results."""
    with EmulatorServer(_builtin(), rerank_search=10) as server:
        yield server


@pytest.fixture(scope="module")
def plain():
    """The same emulator without the option."""
    with EmulatorServer(_builtin()) as server:
        yield server


def _search(address: str, page_size: int, **fields):
    client = versioned_client(de, "SearchServiceClient", address)
    request = de.SearchRequest(
        serving_config=CONFIG,
        query=QUERY,
        page_size=page_size,
        content_search_spec={"search_result_mode": "CHUNKS"},
        **fields,
    )
    return client.search(request=request, **ONCE)


def _ids(response) -> list[str]:
    return [r.chunk.name for r in response.results]


def test_off_by_default(plain, reranking):
    searched = _search(plain.address, 20)
    assert len(searched.results) == 20
    with EmulatorServer(_builtin(), rerank_search=0) as server:
        assert _ids(_search(server.address, 20)) == _ids(searched)
    assert _ids(_search(reranking.address, 20)) != _ids(searched)


def test_the_first_results_come_in_rank_order(plain, reranking):
    searched = _search(plain.address, 20).results
    ranked = versioned_client(de, "RankServiceClient", reranking.address).rank(
        request=de.RankRequest(
            ranking_config=RANKING,
            model="semantic-ranker-512@latest",
            query=QUERY,
            records=[
                de.RankingRecord(
                    id=str(i), title=r.chunk.document_metadata.title, content=r.chunk.content
                )
                for i, r in enumerate(searched[:10])
            ],
        ),
        **ONCE,
    )
    expected = [searched[int(r.id)].chunk.name for r in ranked.records]
    reranked = _search(reranking.address, 20)
    assert _ids(reranked)[:10] == expected
    assert _ids(reranked)[10:] == [r.chunk.name for r in searched[10:]]  # the rest as searched
    # Paging runs over the reranked order.
    first = _search(reranking.address, 5)
    second = _search(reranking.address, 5, page_token=first.next_page_token)
    assert _ids(first) + _ids(second) == _ids(reranked)[:10]


def _answer_references(address: str) -> list[str]:
    client = versioned_client(de, "ConversationalSearchServiceClient", address)
    answer = client.answer_query(
        request=de.AnswerQueryRequest(
            serving_config=CONFIG,
            query=de.Query(text=QUERY),
            search_spec={
                "search_params": {"max_return_results": 3, "search_result_mode": "CHUNKS"}
            },
        ),
        **ONCE,
    ).answer
    return [r.chunk_info.chunk for r in answer.references]


def test_answers_read_the_reranked_results(plain, reranking):
    references = _answer_references(reranking.address)
    assert references
    assert set(references) <= set(_ids(_search(reranking.address, 3)))
    # A chunk the plain search does not put in its first three.
    assert set(references) - set(_ids(_search(plain.address, 3)))
    assert set(_answer_references(plain.address)) <= set(_ids(_search(plain.address, 3)))


def test_pinned_results_stay_above_the_reranked_ones():
    snapshot = _builtin().get(BUILTIN_DATA_STORE)
    page = search(snapshot, SearchParams(query=QUERY, page_size=6))
    rows = np.asarray([h.index for h in chunk_hits(page)])
    ranking = np.zeros(len(snapshot.chunks), dtype=np.float32)
    ranking[rows] = np.linspace(1.0, 0.5, len(rows))
    pinned = np.zeros(len(snapshot.chunks), dtype=bool)
    pinned[rows[4:]] = True  # the two last, as if the unexpanded query found them alone
    reranked = rerank(snapshot, QUERY, rows[:3], ranking, pinned)  # the first 3 reranked
    order = rows[np.argsort(-reranked[rows], kind="stable")].tolist()
    assert set(order[:2]) == set(rows[4:].tolist())
    assert order[:2] == sorted(order[:2], key=lambda r: -ranking[r])  # in the search's order
    assert set(order[2:5]) == set(rows[:3].tolist())  # reranked, below the pinned
    assert order[5] == rows[3]
    assert rerank(snapshot, "  ", rows[:3], ranking, pinned) is ranking  # no query: as is


@pytest.mark.parametrize("value", [-1, 201, True, 2.0, "5"])
def test_bad_values_are_refused(value):
    with pytest.raises(ValueError, match=r"rerank_search must be an int from 0 \(off\) to 200"):
        EmulatorServer(CorpusStore(semantic=False), rerank_search=value)


def test_exactly_200_is_accepted():
    server = EmulatorServer(CorpusStore(semantic=False), rerank_search=200)
    assert server.backend.rerank_search == 200


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("201", "expected 0 (off) to 200 (the records a Rank request takes), got 201"),
        ("-1", "expected 0 (off) to 200 (the records a Rank request takes), got -1"),
        ("ten", "expected a number of results, got 'ten'"),
    ],
)
def test_the_serve_flag_checks_its_value(capsys, value, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--no-builtin", "--no-state", "--port", "0", "--rerank-search", value])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err

"""Retrieve wide, rerank, keep the best: our retriever's 20 chunks reranked by Google's Ranking
API (``DiscoveryEngineReranker`` in LangChain's ``ContextualCompressionRetriever``), sync and
async.

Runs offline on the local emulator (built-in corpus: the Python language reference), which
serves RankService. ``ContextualCompressionRetriever`` comes with ``langchain-classic``
(``pip install langchain-classic``) in LangChain 1.x.

    python -m examples.langchain_rerank "How do I catch several exceptions in one handler?"
"""

from __future__ import annotations

import asyncio
import sys

from langchain_classic.retrievers import ContextualCompressionRetriever
from langchain_core.documents import Document

from grounding_emulator import EmulatorServer
from langchain_grounding import DiscoveryEngineReranker, DiscoveryEngineRetriever


def lines_of(documents: list[Document], searched: list[Document]) -> list[str]:
    """One line per document: its rank score (when reranked), its search score (from the
    ``searched`` documents: a reranked one's ``relevance_score`` is its rank score), its title."""
    search_scores = {doc.id: doc.metadata["relevance_score"] for doc in searched}
    lines = []
    for doc in documents:
        rank = doc.metadata.get("rank_score")
        head = f"rank {rank:.2f} · " if rank is not None else ""
        lines.append(f"  {head}search {search_scores[doc.id]:.2f} · {doc.metadata['title']}")
    return lines


def main(question: str) -> str:
    with EmulatorServer() as emulator:  # offline; on Google Cloud, omit emulator_host
        connection = {"project_id": "my-project", "emulator_host": emulator.address}
        wide = DiscoveryEngineRetriever(data_store_id="python-docs", k=20, **connection)
        reranked = ContextualCompressionRetriever(
            base_compressor=DiscoveryEngineReranker(top_n=3, **connection),
            base_retriever=wide,
        )
        searched = wide.invoke(question)
        best = reranked.invoke(question)
        best_async = asyncio.run(reranked.ainvoke(question))  # on Google's async client
    return "\n".join(
        [
            f"Question: {question}",
            f"Search, first 3 of {len(searched)}:",
            *lines_of(searched[:3], searched),
            "Reranked, best 3:",
            *lines_of(best, searched),
            f"async gives the same: {[d.id for d in best_async] == [d.id for d in best]}",
        ]
    )


if __name__ == "__main__":
    print(main(" ".join(sys.argv[1:]) or "How do I catch several exceptions in one handler?"))

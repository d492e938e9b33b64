"""The peers' documented examples and tested behaviours, each as the peer's own code (written here
after the page or test it names, not copied), run side by side: in the peer's virtualenv by
``record_peers`` (``peer_harness.py``, on the emulator), and ported to ours (``guide_apps.port``:
the import and the class names changed, nothing else) by ``test_peer_cases``.

Each case's code leaves what it gives under ``result``; it starts from ``HEADER`` (the names the
peers' pages define first). A case the peer refuses records its error.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CASES", "HEADER", "Case", "case_code"]

HEADER = """\
PROJECT_ID = "my-project"
LOCATION_ID = "global"
DATA_STORE_ID = "python-docs"
query = "How does the with statement work?"
"""

# langchain-google-community's integration tests' documents and answer (test_check_grounding.py,
# test_rank.py), shortened: two facts about Einstein, one cited, with non-ASCII text.
EINSTEIN = """
from langchain_core.documents import Document

documents = [
    Document(
        page_content=(
            "Born in the German Empire, Einstein moved to Switzerland in 1895, forsaking his "
            "German citizenship. In 1933, while he was visiting the United States, Adolf Hitler "
            "came to power in Germany."
        ),
        metadata={"source": "https://en.wikipedia.org/wiki/Albert_Einstein", "title": "Einstein"},
    ),
    Document(
        page_content=(
            "Albert Einstein was born in Ulm, in the Kingdom of Württemberg in the German "
            "Empire, on 14 March 1879. His parents were Hermann Einstein, a salesman and "
            "engineer, and Pauline Koch."
        ),
        metadata={"source": "https://en.wikipedia.org/wiki/Albert_Einstein", "title": "Einstein"},
    ),
]
"""


@dataclass(frozen=True)
class Case:
    """One documented example or tested behaviour of a peer: ``source`` says where the peer
    shows it; ``code`` is the peer's code (after ``HEADER``), leaving its output in ``result``."""

    name: str
    framework: str
    source: str
    code: str


_SEARCH_PAGE = "LangChain's 'Google Vertex AI Search' retriever page"
_SEARCH_TESTS = "langchain-google-community tests/integration_tests/test_vertex_ai_search.py"

CASES = (
    Case(
        "unstructured-segments",
        "langchain",
        f"{_SEARCH_PAGE}: unstructured data with extractive segments",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, location_id=LOCATION_ID, data_store_id=DATA_STORE_ID, max_documents=3
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "unstructured-answers",
        "langchain",
        f"{_SEARCH_PAGE}: unstructured data with extractive answers",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    location_id=LOCATION_ID,
    data_store_id=DATA_STORE_ID,
    max_documents=3,
    max_extractive_answer_count=3,
    get_extractive_answers=True,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "structured",
        "langchain",
        f"{_SEARCH_PAGE}: structured data",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    location_id=LOCATION_ID,
    data_store_id=DATA_STORE_ID,
    max_documents=3,
    engine_data_type=1,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "website",
        "langchain",
        f"{_SEARCH_PAGE}: website data with advanced website indexing",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    location_id=LOCATION_ID,
    data_store_id=DATA_STORE_ID,
    max_documents=3,
    max_extractive_answer_count=3,
    get_extractive_answers=True,
    engine_data_type=2,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "blended",
        "langchain",
        f"{_SEARCH_PAGE}: blended data (engine_data_type=3, which the peer refuses)",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    location_id=LOCATION_ID,
    search_engine_id="python-docs-app",
    max_documents=3,
    engine_data_type=3,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "multi-turn",
        "langchain",
        f"{_SEARCH_PAGE}: multi-turn search",
        """
from langchain_google_community import VertexAIMultiTurnSearchRetriever

retriever = VertexAIMultiTurnSearchRetriever(
    project_id=PROJECT_ID, location_id=LOCATION_ID, data_store_id=DATA_STORE_ID
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "segments-in-shared-names",
        "langchain",
        f"{_SEARCH_TESTS}: test_google_vertex_ai_multiturnsearch_get_relevant_documents_segments",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    data_store_id=DATA_STORE_ID,
    max_extractive_segment_count=1,
    return_extractive_segment_score=True,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "nones-and-defaults",
        "langchain",
        "VertexAISearchRetriever's fields: None and its own defaults",
        """
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID,
    data_store_id=DATA_STORE_ID,
    filter=None,
    order_by=None,
    canonical_filter=None,
    boost_spec=None,
    custom_embedding=None,
    custom_embedding_field_path=None,
    custom_embedding_ratio=0.0,
    max_documents=2,
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "boost-spec",
        "langchain",
        f"{_SEARCH_TESTS}: its boost_spec (condition true, a freshness boost_control_spec)",
        """
from langchain_google_community import VertexAISearchRetriever

boost_spec = {
    "condition_boost_specs": [
        {
            "condition": "true",
            "boost_control_spec": {
                "field_name": "dateModified",
                "attribute_type": "FRESHNESS",
                "interpolation_type": "LINEAR",
                "control_points": [
                    {"attribute_value": "7d", "boost_amount": 0.9},
                    {"attribute_value": "30d", "boost_amount": 0.7},
                ],
            },
        }
    ]
}
retriever = VertexAISearchRetriever(
    project_id=PROJECT_ID, data_store_id=DATA_STORE_ID, boost_spec=boost_spec, max_documents=3
)
result = retriever.invoke(query)
""",
    ),
    Case(
        "native-serialization",
        "langchain",
        f"{_SEARCH_TESTS}: test_native_serialization",
        """
import json

from langchain_core.load import load
from langchain_google_community import VertexAISearchRetriever

retriever = VertexAISearchRetriever(data_store_id="test-data-store", project_id="test-project")
loaded = load(
    json.loads(json.dumps(retriever.to_json())),
    valid_namespaces=["langchain_google_community"],
    allowed_objects=[VertexAISearchRetriever],
)
result = [type(loaded).__name__, loaded.model_dump() == retriever.model_dump()]
""",
    ),
    Case(
        "summary-tool",
        "langchain",
        f"{_SEARCH_TESTS}: test_vertex_search_tool",
        """
from langchain_google_community import VertexAISearchSummaryTool

tool = VertexAISearchSummaryTool(
    name="vertex-search",
    description="Vertex Search Tool",
    project_id=PROJECT_ID,
    data_store_id=DATA_STORE_ID,
)
result = [tool.name, tool.description, tool.run(query)]
""",
    ),
    Case(
        "check-grounding",
        "langchain",
        "langchain-google-community tests/integration_tests/test_check_grounding.py",
        EINSTEIN
        + """
from google.cloud import discoveryengine_v1alpha
from langchain_google_community import VertexAICheckGroundingWrapper

checker = VertexAICheckGroundingWrapper(
    project_id=PROJECT_ID,
    location_id="global",
    grounding_config="default_grounding_config",
    client=discoveryengine_v1alpha.GroundedGenerationServiceClient(),
)
answer = "Ulm, in the Kingdom of Württemberg in the German Empire."
result = checker.with_config(configurable={"documents": documents}).invoke(answer)
""",
    ),
    Case(
        "rerank",
        "langchain",
        "LangChain's 'Google Cloud Vertex AI Reranker' page, on the documents of "
        "tests/integration_tests/test_rank.py",
        EINSTEIN
        + """
from langchain_google_community import VertexAIRank

reranker = VertexAIRank(
    project_id=PROJECT_ID,
    location_id="global",
    ranking_config="default_ranking_config",
    title_field="source",
    top_n=5,
)
result = reranker.compress_documents(documents, "Who were Einstein's parents?")
""",
    ),
)


def case_code(case: Case) -> str:
    """The code a case runs: ``HEADER``, then its own."""
    return HEADER + case.code

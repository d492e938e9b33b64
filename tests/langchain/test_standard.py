"""LangChain's standard retriever tests, unmodified, against the emulator."""

import pytest
from langchain_tests.integration_tests import RetrieversIntegrationTests

from langchain_grounding import DeveloperKnowledgeRetriever, DiscoveryEngineRetriever


@pytest.mark.usefixtures("emulator_env")
class TestDiscoveryEngineRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[DiscoveryEngineRetriever]:
        return DiscoveryEngineRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"data_store_id": "python-docs", "k": 5}

    @property
    def retriever_query_example(self) -> str:
        return "How does the with statement call __enter__ and __exit__?"


@pytest.mark.usefixtures("emulator_env")
class TestDeveloperKnowledgeRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[DeveloperKnowledgeRetriever]:
        return DeveloperKnowledgeRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"k": 5}

    @property
    def retriever_query_example(self) -> str:
        return "What does the yield expression do in a generator?"

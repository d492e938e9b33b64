"""The peers' documented apps (langchain-google-community, llama-index-retrievers-vertexai-search)
against ours, as docs/migrating.md shows them: the peers' side recorded once in their own
virtualenvs (``python -m tests.migration.record_peers``), ours run by the test suite."""

"""Search: Discovery Engine (Vertex AI Search) chunk search (``discovery_engine``), Developer
Knowledge chunk search (``developer_knowledge``), search summaries (``summaries``), the search
options (``specs``) and how a response becomes records (``results``)."""

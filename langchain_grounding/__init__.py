"""LangChain adapters over grounding_core."""

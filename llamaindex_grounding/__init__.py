"""LlamaIndex adapters over grounding_core."""

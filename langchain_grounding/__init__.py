"""LangChain adapters over grounding_core: Vertex AI Search chunks as Documents, grounding
checks as a chain step or a callback, grounded answers from answerQuery.

>>> from langchain_grounding import DiscoveryEngineRetriever, GroundingChecker  # doctest: +SKIP
"""

import lazy_loader

# Each public name is imported at its first use (PEP 562), so that a program loads only the
# modules it uses; the names, and the modules they come from, are in __init__.pyi.
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)

"""Framework-neutral core: Google's grounding APIs as plain records.

Search chunks, check grounding and answer queries on Discovery Engine (Vertex AI Search) and
the Developer Knowledge API, against Google Cloud or the local emulator
(``grounding_emulator``). The only package of the project that imports Google's client
libraries; the LangChain and LlamaIndex adapters receive the records defined here.

>>> from grounding_core import DiscoveryEngineClients, DiscoveryEngineTarget, search_chunks
>>> clients = DiscoveryEngineClients(emulator_host="localhost:8123")  # doctest: +SKIP
>>> target = DiscoveryEngineTarget(project="my-project", data_store="docs")
>>> chunks = search_chunks(clients, target, "what is a generator?")  # doctest: +SKIP
"""

import lazy_loader

# Each public name is imported at its first use (PEP 562), so that a program loads only the
# modules it uses; the names, and the modules they come from, are in __init__.pyi.
__getattr__, __dir__, _names = lazy_loader.attach_stub(__name__, __file__)
__all__ = sorted(_names, key=lambda name: (not name.isupper(), name))

"""Framework-neutral core: Google's grounding APIs as plain records.

Search chunks, check grounding, answer queries and rank records on Discovery Engine (Vertex AI
Search) and the Developer Knowledge API, against Google Cloud or the local emulator
(``grounding_emulator``). The only package of the project that imports Google's client
libraries; the LangChain and LlamaIndex adapters receive the records defined here. One module
(or small package) per API: ``search``, ``grounding``, ``answers``, ``ranking``; the views of a
checked answer in ``views``; what agents read in ``agents``; the peers' argument names in
``peers``; the shared machinery in the private ``_*`` modules.

>>> from grounding_core import DiscoveryEngineChunkSearch, DiscoveryEngineConnection
>>> connection = DiscoveryEngineConnection(emulator_host="localhost:8123")
>>> search = DiscoveryEngineChunkSearch(connection, data_store_id="python-docs", k=3)
>>> chunks = search.search("what is a generator?")  # doctest: +SKIP
"""

import lazy_loader

# Each public name is imported at its first use (PEP 562), so that a program loads only the
# modules it uses; the names, and the modules they come from, are in __init__.pyi.
__getattr__, __dir__, _names = lazy_loader.attach_stub(__name__, __file__)
__all__ = sorted(_names, key=lambda name: (not name.isupper(), name))

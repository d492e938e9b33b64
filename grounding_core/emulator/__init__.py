"""The local emulator: Google's Discovery Engine and Developer Knowledge services over a local
corpus, as a real gRPC server that Google's unmodified clients talk to.

>>> from grounding_core.emulator import EmulatorServer
>>> with EmulatorServer() as server:  # doctest: +SKIP
...     clients = server.discovery_engine_clients()

Layout: ``server`` (the gRPC server), ``handlers`` (method table, faults, status mapping),
``servicers`` (one class per Google service) and ``messages`` (records -> protos); the pure
engines ``search_engine`` (+ ``fusion``, hybrid ranking), ``answer_engine`` (+
``answer_sentences``, ``query_classes``), ``grounding_engine`` (+ ``grounding_check``); the
corpus: ``corpus`` (reading), ``chunking``, ``unwrap``, ``tokens``, ``index`` (BM25),
``embeddings`` (the optional model), ``embedding_cache`` (its vectors, kept across processes)
and ``semantic_index`` (chunk and sentence vectors), ``datastore`` (one
snapshot), ``store`` (all of them, persisted), ``builtin`` (the Python docs), ``filters``,
``names``; ``faults`` and ``errors``.
"""

from .builtin import BUILTIN_DATA_STORE, BUILTIN_ENGINE
from .datastore import DataStore
from .errors import CorpusError, EmulatorError, FailedPrecondition, InvalidArgument, NotFound
from .faults import Fault, FaultInjector
from .server import DEFAULT_PORT, EmulatorServer
from .store import CorpusStore

__all__ = [
    "BUILTIN_DATA_STORE",
    "BUILTIN_ENGINE",
    "DEFAULT_PORT",
    "CorpusError",
    "CorpusStore",
    "DataStore",
    "EmulatorError",
    "EmulatorServer",
    "FailedPrecondition",
    "Fault",
    "FaultInjector",
    "InvalidArgument",
    "NotFound",
]

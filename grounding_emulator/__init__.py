"""The local emulator: Google's Discovery Engine and Developer Knowledge services over a local
corpus, as a real gRPC server that Google's unmodified clients talk to.

>>> from grounding_emulator import EmulatorServer, ScriptedJudge
>>> judge = ScriptedJudge()  # verdicts a test sets; the lexical judge for the rest
>>> with EmulatorServer(judge=judge) as server:  # doctest: +SKIP
...     address = server.address  # give it to a client over grpc.insecure_channel
...     server.judge.unsupported_if_contains("Penguins")

A package of its own: it imports Google's protos and client types, never the client side
(``grounding_core``) or the adapters, so that it is checked against the client, not built
from it. Its parts:

- ``wire``: the gRPC server, one servicer per Google service that registers itself (the method
  table is built from the registry), faults, and the one place where engine errors become gRPC
  statuses;
- ``corpus``: reading, chunking, tokens, indexes, data stores and their persisted store;
- ``search``, ``answer``: the pure engines behind Search and AnswerQuery;
- ``grounding``: CheckGrounding's flow (limits, the claim splitter) and the judges that give each
  claim its verdict (``judge``: the ``Judge`` Protocol and its records; ``lexical``:
  ``LexicalJudge``, the default; ``scripted``: ``ScriptedJudge``, verdicts a test sets). Any
  callable of the Protocol can be given as ``EmulatorServer(judge=...)``;
- ``limits``: Google's documented limits and defaults, once; ``errors``: the engines' errors;
- ``commands``: ``grounding serve`` and ``grounding ingest``, which the ``grounding`` command
  finds through the ``grounding.commands`` entry points.
"""

import lazy_loader

# Each public name is imported at its first use (PEP 562), so that the ``grounding`` command
# loads the emulator's commands (``commands.py``) without its engines and their extra; the
# names, and the modules they come from, are in __init__.pyi.
__getattr__, __dir__, _names = lazy_loader.attach_stub(__name__, __file__)
__all__ = sorted(_names, key=lambda name: (not name.isupper(), name))

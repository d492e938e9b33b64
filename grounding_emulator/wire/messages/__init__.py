"""Engine records -> Google's response messages (raw protobuf, the fastest form to build and
serialize; see the serializer comparison in ``benchmarks/bench_emulator_scale.py``), one module
per service.

Every offset put into a message is in UTF-8 bytes, end exclusive, as the APIs define them.
"""

from grounding_emulator.wire.messages.answer import (
    discovery_answer_response,
    discovery_answer_stream,
)
from grounding_emulator.wire.messages.common import BRANCH, ChunkNames
from grounding_emulator.wire.messages.developer import (
    developer_answer_response,
    developer_batch_response,
    developer_document,
    developer_search_response,
)
from grounding_emulator.wire.messages.grounding import check_grounding_response
from grounding_emulator.wire.messages.search import search_response
from grounding_emulator.wire.messages.summary import search_summary, summary_params

__all__ = [
    "BRANCH",
    "ChunkNames",
    "check_grounding_response",
    "developer_answer_response",
    "developer_batch_response",
    "developer_document",
    "developer_search_response",
    "discovery_answer_response",
    "discovery_answer_stream",
    "search_response",
    "search_summary",
    "summary_params",
]

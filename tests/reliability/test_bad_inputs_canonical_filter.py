"""Bad ``canonical_filter`` values (``SearchRequest.canonical_filter``): refused by the client
as ``filter`` is (type, lone surrogate), and by the emulator as a malformed ``filter`` is, each
error naming ``canonical_filter``; a huge or deeply nested one is refused in bounded time."""

from google.api_core import exceptions as core_exceptions
from pydantic import ValidationError

from grounding_core import ChunkSearchSpec, InputError, InvalidRequestError
from langchain_grounding import DiscoveryEngineRetriever
from llamaindex_grounding import DiscoveryEngineRetriever as LlamaIndexRetriever
from tests.reliability.bad_input_table import clear_error_test, table_size_test
from tests.reliability.test_bad_inputs import PROJECT, raw_search, search

AUTO = {"condition": "AUTO"}
SURROGATE = "holds a lone surrogate (U+D800) at character 11"


def searched(emulator, canonical_filter: str, query_expansion: str | None = "auto"):
    return search(
        emulator, "lighthouse", canonical_filter=canonical_filter, query_expansion=query_expansion
    )


CASES = [
    (
        "canonical filter of type int",
        lambda e: ChunkSearchSpec(canonical_filter=3),
        InputError,
        ["ChunkSearchSpec.canonical_filter must be a string, got int"],
    ),
    (
        "canonical filter None",
        lambda e: ChunkSearchSpec(canonical_filter=None),
        InputError,
        ["ChunkSearchSpec.canonical_filter must be a string, got NoneType"],
    ),
    (
        "canonical filter with a lone surrogate",
        lambda e: ChunkSearchSpec(canonical_filter='lang: ANY("\ud800")'),
        InputError,
        ["ChunkSearchSpec.canonical_filter", SURROGATE],
    ),
    (
        "LangChain retriever canonical filter of type int",
        lambda e: DiscoveryEngineRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=e.address,
            canonical_filter=3,
        ),
        ValidationError,
        ["canonical_filter\n  Input should be a valid string"],
    ),
    (
        "LlamaIndex retriever canonical filter of type list",
        lambda e: LlamaIndexRetriever(
            project_id=PROJECT,
            data_store_id="test-docs",
            emulator_host=e.address,
            canonical_filter=["lang"],
        ),
        InputError,
        ["ChunkSearchSpec.canonical_filter must be a string, got list"],
    ),
    (
        "malformed canonical filter",
        lambda e: searched(e, 'lang: ANY("en"'),
        InvalidRequestError,
        ["INVALID_ARGUMENT", "canonical_filter is malformed", "column 11"],
    ),
    (
        "malformed canonical filter without query expansion",
        lambda e: searched(e, "rank >", query_expansion=None),
        InvalidRequestError,
        ["INVALID_ARGUMENT", "canonical_filter is malformed"],
    ),
    (
        "canonical filter on an unknown field",
        lambda e: searched(e, 'colour: ANY("red")'),
        InvalidRequestError,
        ["canonical_filter: 'colour' is not a struct_data field", "fields: group, lang"],
    ),
    (
        "canonical filter comparing a text field",
        lambda e: searched(e, 'lang > "en"'),
        InvalidRequestError,
        ["canonical_filter", "lang"],
    ),
    (
        "canonical filter of 50,001 characters",
        lambda e: searched(e, "x" * 50_001),
        InvalidRequestError,
        ["canonical_filter", "50000"],
    ),
    (
        "canonical filter nested 101 deep",
        lambda e: searched(e, "(" * 101 + 'lang: ANY("en")' + ")" * 101),
        InvalidRequestError,
        ["canonical_filter", "100"],
    ),
    (
        "raw malformed canonical filter",
        lambda e: raw_search(e, canonical_filter="NOT", query_expansion_spec=AUTO),
        core_exceptions.InvalidArgument,
        ["canonical_filter is malformed"],
    ),
]

test_the_table_is_big_enough = table_size_test(CASES, minimum=12)
test_bad_input_gets_a_clear_error = clear_error_test(CASES)

"""Google's documented limits and defaults, as the emulator enforces them: the one place.

Each value names the field doc or reference page it comes from. The client side keeps its own
copies (it must refuse a request before sending it); ``tests/emulator/test_limits.py`` asserts
that the two agree, so a change on one side that the other misses fails a test.
"""

from __future__ import annotations

import re

__all__ = [
    "CONVERSE_RESULTS",
    "DEFAULT_CITATION_THRESHOLD",
    "DEFAULT_DATA_STORE_PAGE_SIZE",
    "DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE",
    "DEFAULT_DOCUMENT_PAGE_SIZE",
    "DEFAULT_FACET_LIMIT",
    "DEFAULT_MAX_RETURN_RESULTS",
    "DEFAULT_PAGE_SIZE",
    "DEFAULT_RANKING_MODEL",
    "DEFAULT_SESSION_PAGE_SIZE",
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_TOKENS",
    "MAX_BATCH_DOCUMENTS",
    "MAX_BOOST_SPECS",
    "MAX_CHUNK_NEIGHBOURS",
    "MAX_CONTENT_BYTES",
    "MAX_CONTENT_URI_BYTES",
    "MAX_CONTENT_URI_TEXT_BYTES",
    "MAX_CONVERSATION_MESSAGES",
    "MAX_DATA_STORE_DISPLAY_NAME",
    "MAX_DATA_STORE_PAGE_SIZE",
    "MAX_DEVELOPER_KNOWLEDGE_TEXT",
    "MAX_DOCUMENT_ID",
    "MAX_DOCUMENT_PAGE_SIZE",
    "MAX_ENGINE_DISPLAY_NAME",
    "MAX_EXTRACTIVE_ANSWERS",
    "MAX_EXTRACTIVE_SEGMENTS",
    "MAX_FACET_INTERVALS",
    "MAX_FACET_LIMIT",
    "MAX_FACET_SPECS",
    "MAX_FACTS",
    "MAX_FACT_CHARS",
    "MAX_GCS_CONTENT_FILES",
    "MAX_GCS_CONTENT_FILE_BYTES",
    "MAX_GCS_FILES",
    "MAX_GCS_FILE_BYTES",
    "MAX_GCS_URI",
    "MAX_JSONL_FILE_BYTES",
    "MAX_PAGE_SIZE",
    "MAX_PDF_FILE_BYTES",
    "MAX_PURGE_SAMPLE",
    "MAX_QUERY_CHARS",
    "MAX_RANK_RECORDS",
    "MAX_REPHRASE_STEPS",
    "MAX_RESOURCE_ID",
    "MAX_RESOURCE_NAME",
    "MAX_RESPONSE_BYTES",
    "MAX_SEARCH_SOURCE_RESULTS",
    "MAX_SESSION_PAGE_SIZE",
    "MAX_SESSION_TURNS",
    "MAX_STRUCT_DEPTH",
    "MAX_SUMMARY_RESULTS_CHUNKS",
    "MAX_SUMMARY_RESULTS_DOCUMENTS",
    "MAX_TEXT_FILE_BYTES",
    "MAX_USER_PSEUDO_ID",
    "estimate_tokens",
    "truncate_tokens",
]

# CheckGroundingRequest (v1 reference): "facts: ... at most 200"; "answer_candidate: ... at most
# 4096 tokens"; GroundingFact.fact_text "at most 10k characters".
MAX_FACTS = 200
MAX_FACT_CHARS = 10_000
MAX_ANSWER_TOKENS = 4_096
# Google does not say how many characters answer_candidate may have; the token count alone lets
# one long run without spaces (one token to the estimate) through. No model token is longer than
# 32 characters (SentencePiece caps pieces at 16 by default), so no answer within 4,096 tokens
# is longer than this: refused before the work, as INVALID_ARGUMENT like the token limit.
MAX_ANSWER_CHARS = 32 * MAX_ANSWER_TOKENS
# CheckGroundingSpec.citation_threshold: "If unset, the threshold will default to 0.6."
DEFAULT_CITATION_THRESHOLD = 0.6

# GenerateGroundedContentRequest.GroundingSource.SearchSource.max_result_count: "The default
# value is 10. The maximumm allowed value is 10." Its inline facts: Google gives no count; the
# emulator applies CheckGrounding's (MAX_FACTS) and FactChunk.chunk_text's "at most 10K
# characters" (MAX_FACT_CHARS).
MAX_SEARCH_SOURCE_RESULTS = 10

# SearchRequest.page_size: "If unspecified, defaults to 50 ... Values above 100 are coerced to
# 100. If this field is negative, an INVALID_ARGUMENT is returned."
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
# ContentSearchSpec.ChunkSpec.num_previous_chunks / num_next_chunks: "at most 3".
MAX_CHUNK_NEIGHBOURS = 3
# ContentSearchSpec.SummarySpec.summary_result_count: "At most 10 results for documents mode, or
# 50 for chunks mode, can be used to generate a summary."
MAX_SUMMARY_RESULTS_DOCUMENTS = 10
MAX_SUMMARY_RESULTS_CHUNKS = 50
# ContentSearchSpec.ExtractiveContentSpec.max_extractive_answer_count: "At most five answers
# are returned for each SearchResult"; max_extractive_segment_count: at most 10 ("Get snippets
# and extracted content", maxExtractiveSegmentCount).
MAX_EXTRACTIVE_ANSWERS = 5
MAX_EXTRACTIVE_SEGMENTS = 10
# SearchRequest.BoostSpec.condition_boost_specs: "Maximum number of specifications is 20" (the
# same BoostSpec in data_store_specs, AnswerQuery's search_params and ConverseConversation).
MAX_BOOST_SPECS = 20
# SearchRequest.query ("Raw search query"), AnswerQueryRequest.query.text, RankRequest.query
# ("The query to use"), ConverseConversationRequest.query.input, Session.Turn.query.text:
# Google documents no length (only Developer Knowledge's 500 characters). The emulator's bound,
# far above what a person or an agent asks, keeps one query's work (tokens scored, widened and
# spell-checked) to a fraction of a second; refused before the work, as INVALID_ARGUMENT.
MAX_QUERY_CHARS = 10_000
# Session.turns and Conversation.messages: Google documents no count. The emulator's bounds
# (a conversation's turn is two messages, the user's input and the reply) keep a session, and
# every response that carries one, bounded: a full session answers in a few MiB.
MAX_SESSION_TURNS = 1_000
MAX_CONVERSATION_MESSAGES = 2 * MAX_SESSION_TURNS
# The emulator's bound on a response that gathers stored resources (GetSession's answer
# details, a ListSessions or ListConversations page), the size of the largest request it
# reads (10 MiB): a list page ends early, with its next_page_token, before the resource that
# would take it over (AIP-158: "the API may return fewer results than requested").
MAX_RESPONSE_BYTES = 10 * 1024 * 1024
# SearchRequest.user_pseudo_id: "a length limit of 128 characters. Otherwise, INVALID_ARGUMENT".
MAX_USER_PSEUDO_ID = 128
# SearchRequest.facet_specs: "A maximum of 100 values"; FacetSpec.limit "defaults to 20 ... The
# maximum allowed value is 300. Values above 300 are coerced to 300"; FacetKey.intervals
# "Maximum number of intervals is 30".
MAX_FACET_SPECS = 100
DEFAULT_FACET_LIMIT = 20
MAX_FACET_LIMIT = 300
MAX_FACET_INTERVALS = 30
# AnswerQueryRequest.SearchSpec.SearchParams.max_return_results: "default 10".
DEFAULT_MAX_RETURN_RESULTS = 10
# AnswerQueryRequest.user_pseudo_id has the same limit as SearchRequest's (MAX_USER_PSEUDO_ID).
# QueryRephraserSpec.max_rephrase_steps: "The max number is 5 steps. If not set or set to < 1,
# it will be set to 1 by default."
MAX_REPHRASE_STEPS = 5
# ListSessionsRequest.page_size: "If unspecified, defaults to 50. Max allowed value is 1000."
DEFAULT_SESSION_PAGE_SIZE = 50
MAX_SESSION_PAGE_SIZE = 1000
# ListConversationsRequest.page_size documents the same: "If unspecified, defaults to 50. Max
# allowed value is 1000" (the two listings share these values).
# ConverseConversationResponse.search_results: Google does not say how many; the emulator
# returns the first 10, the most a DOCUMENTS-mode summary reads (MAX_SUMMARY_RESULTS_DOCUMENTS),
# so that every result the reply can cite is in the response.
CONVERSE_RESULTS = 10

# RankRequest.records: "At most 200 records to rank." RankRequest.model: "It is set to
# semantic-ranker-512@latest by default if unspecified." Tokens per record ("Improve search and
# RAG quality with ranking API"): "version 003 and earlier support 512 tokens, version 004
# supports 1024 tokens. If the combined length of the title and content exceeds the model's
# token limit, the extra content is truncated."
MAX_RANK_RECORDS = 200
DEFAULT_RANKING_MODEL = "semantic-ranker-512@latest"

# google.developers.knowledge.v1: SearchDocumentChunksRequest.page_size "default 5";
# query and filter "at most 500 characters"; BatchGetDocumentsRequest.names "at most 20".
DEFAULT_DEVELOPER_KNOWLEDGE_PAGE_SIZE = 5
MAX_DEVELOPER_KNOWLEDGE_TEXT = 500
MAX_BATCH_DOCUMENTS = 20

# What a data store takes in (checked at ingest, corpus/validation.py). Document.Content.raw_bytes
# (inline content, as a JSONL document's "content" is): "The maximum length is 1,000,000 bytes";
# "Prepare data for ingesting" (generative-ai-app-builder/docs/prepare-data): text-based files
# under 10 MB with layout-aware document chunking (which chunk mode is), PDF under 200 MB;
# GcsSource.input_uris: "Each file can be up to 2 GB". Struct nesting: protobuf's default
# recursion limit (100, in Python's upb, C++ and Java) leaves 31 levels of struct_data in the
# deepest response that carries it (GetSession / ListSessions with answer details; measured).
MAX_CONTENT_BYTES = 1_000_000
MAX_TEXT_FILE_BYTES = 10_000_000
MAX_PDF_FILE_BYTES = 200_000_000
MAX_JSONL_FILE_BYTES = 2_000_000_000
MAX_STRUCT_DEPTH = 31

# Resources (DataStoreService, EngineService, DocumentService field docs, v1). Ids:
# CreateDataStoreRequest.data_store_id and CreateEngineRequest.engine_id "must conform to RFC-1034
# standard with a length limit of 63 characters" (Engine.name: "engine should be 1-63 characters,
# and valid characters are /[a-z0-9][a-z0-9-_]*/"); Document.id and
# CreateDocumentRequest.document_id "RFC-1034 standard with a length limit of 128 characters".
# Names: DataStore.name, Engine.name and Document.name "a length limit of 1024 characters".
# DataStore.display_name "a length limit of 128 characters"; Engine.display_name "limit of 1024
# characters".
MAX_RESOURCE_ID = 63
MAX_DOCUMENT_ID = 128
MAX_RESOURCE_NAME = 1024
MAX_DATA_STORE_DISPLAY_NAME = 128
MAX_ENGINE_DISPLAY_NAME = 1024
# ListDataStoresRequest.page_size: "If unspecified, defaults to 10. The maximum allowed value is
# 50. Values above 50 will be coerced to 50." ListDocumentsRequest.page_size: "If unspecified,
# defaults to 100. The maximum allowed value is 1000. Values above 1000 are set to 1000."
DEFAULT_DATA_STORE_PAGE_SIZE = 10
MAX_DATA_STORE_PAGE_SIZE = 50
DEFAULT_DOCUMENT_PAGE_SIZE = 100
MAX_DOCUMENT_PAGE_SIZE = 1000
# GcsSource.input_uris: "Each URI can be up to 2000 characters long ... A request can contain at
# most 100 files (or 100,000 files if data_schema is content). Each file can be up to 2 GB (or
# 100 MB if data_schema is content)." Document.Content.uri: "The maximum file size is 2.5 MB for
# text-based formats, 200 MB for other formats."
MAX_GCS_URI = 2000
MAX_GCS_FILES = 100
MAX_GCS_CONTENT_FILES = 100_000
MAX_GCS_FILE_BYTES = 2_000_000_000
MAX_GCS_CONTENT_FILE_BYTES = 100_000_000
MAX_CONTENT_URI_TEXT_BYTES = 2_500_000
MAX_CONTENT_URI_BYTES = 200_000_000
# PurgeDocumentsResponse.purge_sample: "A max of 100 names will be returned".
MAX_PURGE_SAMPLE = 100

# Google counts model tokens, which the docs do not define. The emulator counts a word, a
# number, one CJK/kana/hangul character or one punctuation mark as a token: every model
# tokenizer splits at least that finely, so the emulator never refuses what Google accepts.
_TOKEN = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+|[^\w\s]"
)


def estimate_tokens(text: str) -> int:
    """The tokens of ``text`` as the emulator counts them (a lower bound of a model's count)."""
    return sum(1 for _ in _TOKEN.finditer(text))


def truncate_tokens(text: str, limit: int) -> str:
    """``text`` up to the end of its ``limit``-th token (as ``estimate_tokens`` counts them),
    reading no further than that token."""
    if limit <= 0:
        return ""
    for count, match in enumerate(_TOKEN.finditer(text), 1):
        if count == limit:
            return text[: match.end()]
    return text

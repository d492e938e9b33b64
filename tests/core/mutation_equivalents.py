"""Surviving mutants that change no observable behaviour, with the reason (``make mutation``).

Each entry names the function (``module.function`` or ``module.Class.method``) and the mutated
code as ``mutmut show`` prints it (the added lines, stripped), so that an entry survives the
renumbering of mutants when other code of the function changes. ``tests.core.mutation_score``
counts these out of the score and reports entries that no longer match a survivor.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Equivalent:
    """A surviving mutant that no test can kill, and why."""

    function: str
    change: str
    reason: str


CAST_TYPE = "typing.cast returns its value whatever the type it names"
CODEC_CASE = "codec names are case-insensitive"
ZIP_STRICT = "both sequences are built one per item of the same list: they never differ in length"
FAST_PATH = "a fast path: without it the full check runs and finds the same (no lone surrogate)"
FALSY_NONE = "None is falsy, like the False it replaces"
STYLE_CASE = "rich parses style names case-insensitively: the terminal output is the same"
SET_ORDER_TAG = "the tag only orders the kinds: numbers (0) still sort before everything else"
TYPE_FAST_PATH = (
    "a fast path by exact type: without it the isinstance checks below return the same value"
)
LOCK_FREE_READ = (
    "a lock-free read of the cache: without it the read under the lock finds the same client"
)
DEFAULT_TRANSPORT = (
    "Google's clients default to the transport named: grpc for a sync client (the first of its "
    "registry), grpc_asyncio for an async one"
)
GRPC_DETAILS = (
    "grpc's continuation takes the call's own details for any its argument lacks: None lacks all"
)
FIND_FROM_NONE = "str.find reads a start of None as 0, the value it replaces"
ASCII_TABLE = (
    "a fast path for ASCII text: the table built without it maps each offset to itself, as the "
    "fast path does"
)

UNREAD_STAND_IN = (
    "a failed check's stand-in result: grounding_metadata reads its score and claims, never "
    "its answer"
)
ATTRGETTER_ZIP = (
    "attrgetter of the field names returns one value per name: the two never differ in length"
)
SLICE_NONE = "a slice from None starts at 0, as a slice from 0 does"
RANK_SCORE_PLACES = (
    "Google rounds a rank score to 2 places (or 0.0001): its float32 reads back the same at 4 "
    "or 5 places"
)

EMPTY_FIELD = (
    "the condition only saves a call: over an empty repeated field or map it gives the same empty "
    "value"
)
NO_NEIGHBOURS = "an unset chunk_metadata has no neighbours: both lists come out empty, as with None"
NO_SEPARATOR = (
    "a name without '/chunks/' leaves document_name empty: the value and the else are both ''"
)
DOCUMENT_CACHE = (
    "a cache of each document's struct data, used only for the same metadata message: without "
    "it each chunk reads its document again and gets an equal dict of its own"
)
FIRST_PAGE = (
    "a first page without results is the last one (no next_page_token): the pager stops after "
    "it whatever k"
)


def _each(function: str, reason: str, *changes: str) -> tuple[Equivalent, ...]:
    return tuple(Equivalent(function, change, reason) for change in changes)


EQUIVALENT: tuple[Equivalent, ...] = (
    # -- _checks
    *_each(
        "grounding_core._checks._first_surrogate",
        FAST_PATH,
        "return None if (text.isascii()) and False else _SURROGATE.search(text)",
    ),
    *_each(
        "grounding_core._checks._set_order",
        SET_ORDER_TAG,
        "return (2, json.dumps(item, sort_keys=True))",
    ),
    *_each(
        "grounding_core._checks._Walk.convert",
        TYPE_FAST_PATH,
        "kind = None",
        "kind = type(None)",
        "if kind is int and kind is bool or value is None:",
        "if kind is dict and kind is list:",
    ),
    *_each(
        "grounding_core._checks._Walk.convert",
        FAST_PATH,
        "return value if (value.isascii()) and False else self.text(value)",
    ),
    *_each(
        "grounding_core._checks._Walk.convert",
        CODEC_CASE,
        'return self.text(bytes(value).decode("UTF-8"))',
    ),
    # -- _clients
    *_each(
        "grounding_core._clients._Connection._build",
        DEFAULT_TRANSPORT,
        "client = cls(client_options=options, credentials=self._credentials)",
    ),
    *_each(
        "grounding_core._clients._Connection.client",
        LOCK_FREE_READ,
        "client = None",  # the first read only: the read under the lock is killed
        "client = self._sync.get(None)",
    ),
    *_each(
        "grounding_core._clients._Connection.client",
        FALSY_NONE,
        "self._sync_channel = emulator_channel(self.emulator_host, asynchronous=None)",
        "client = self._build(client_cls, self._sync, self._sync_channel, None)",
    ),
    *_each("grounding_core._clients._Connection.client", CAST_TYPE, "return cast(None, client)"),
    *_each(
        "grounding_core._clients._Connection.async_client", CAST_TYPE, "return cast(None, client)"
    ),
    *_each(
        "grounding_core._clients._accepts_connections",
        "a loopback port answers a connect at once (accepted or refused): the timeout bounds only "
        "a host that drops packets, which no machine offers offline",
        'with socket.create_connection((name.strip("[]"), int(port)), ):',
        'with socket.create_connection((name.strip("[]"), int(port)), None):',
    ),
    *_each(
        "grounding_core._clients._accepts_connections",
        "stripping 'X' too changes only a host name that begins or ends with a capital X, which "
        "no loopback address does",
        'with socket.create_connection((name.strip("XX[]XX"), int(port)), '
        "EMULATOR_CONNECT_TIMEOUT):",
    ),
    *_each(
        "grounding_core._clients._accepts_connections",
        "the monotonic clock never equals the deadline exactly between two reads",
        "if time.monotonic() > deadline:",
    ),
    *_each(
        "grounding_core._clients._accepts_connections",
        "the poll interval: a longer one finds a port that opens one interval later, still "
        "within the deadline (the late-start test), and refuses a closed one as soon",
        "time.sleep(1.05)",
    ),
    *_each(
        "grounding_core._clients._RefusedConnection.intercept_unary_unary",
        GRPC_DETAILS,
        "outcome = continuation(None, request)",
    ),
    # -- _convert
    *_each("grounding_core._convert.Spans.__init__", FIND_FROM_NONE, "self._search_from = None"),
    *_each(
        "grounding_core._convert.Spans._repair",
        "without a claim text only `found >= 0` reads it, and -2 fails it as -1 does",
        "found = self.text.find(expected, self._search_from) if expected else -2",
    ),
    *_each(
        "grounding_core._convert.Spans._repair",
        "a match at 0 when searching from the last span's end means that end is 0: searching "
        "again from the start finds the same 0",
        "if expected and found <= 0:",
        "if expected and found < 1:",
    ),
    *_each(
        "grounding_core._convert.Spans._repair",
        FALSY_NONE,
        "start = self.offsets.nearest_char(byte_start, round_up=None)",
    ),
    *_each(
        "grounding_core._convert.Spans.span",
        "find and rfind both give -1 exactly when the claim text does not occur",
        "if self.text.rfind(expected) < 0:",
    ),
    # -- _errors
    *_each(
        "grounding_core._errors.message_too_large",
        'an empty message and "XXXX" alike match no size pattern',
        'found = _TOO_LARGE.search(exc.message or "XXXX")',
    ),
    # -- _offsets
    *_each(
        "grounding_core._offsets.Utf8Offsets.__init__",
        ASCII_TABLE,
        "self._starts = None if (text.isascii()) and False else list(accumulate(map(_width, "
        "text), initial=0))",
    ),
    # -- _records
    *_each(
        "grounding_core._records.GroundingResult._repr_html_",
        FALSY_NONE,
        "return grounding_html(self, full_document=None)",
    ),
    *_each(
        "grounding_core._records.GroundedAnswer._repr_html_",
        FALSY_NONE,
        "return answer_html(self, full_document=None)",
    ),
    *_each(
        "grounding_core._records._Record.to_dict",
        CAST_TYPE,
        "return cast(None, to_jsonable(self))",
        'return cast("XXdict[str, Any]XX", to_jsonable(self))',
        'return cast("dict[str, any]", to_jsonable(self))',
        'return cast("DICT[STR, ANY]", to_jsonable(self))',
    ),
    # -- grounding.check
    *_each(
        "grounding_core.grounding.check.attributes_from_metadata",
        FALSY_NONE,
        "key: value if isinstance(value, str) else json.dumps(value, ensure_ascii=None)",
    ),
    *_each(
        "grounding_core.grounding.check.check_answer_candidate",
        "a text of n characters has at most n tokens (every token is at least one character), "
        "so an answer of 4,096 characters passes whether its tokens are counted or not",
        "len(answer) >= MAX_ANSWER_TOKENS and (tokens := estimate_tokens(answer)) > "
        "MAX_ANSWER_TOKENS",
    ),
    *_each(
        "grounding_core.grounding.check.GroundingCheck.request",
        ZIP_STRICT,
        "for text, attributes in zip(facts.texts, facts.attributes, strict=None):",
        "for text, attributes in zip(facts.texts, facts.attributes, ):",
        "for text, attributes in zip(facts.texts, facts.attributes, strict=False):",
    ),
    # -- grounding.claim_stream
    *_each(
        "grounding_core.grounding.claim_stream.ClaimStream.close",
        FALSY_NONE,
        "self._pool.shutdown(wait=None, cancel_futures=True)",
    ),
    *_each(
        "grounding_core.grounding.claim_stream.SentencePieces.feed",
        FALSY_NONE,
        "piece = self._cut(j, final=None)",
    ),
    *_each(
        "grounding_core.grounding.claim_stream._Claims.__init__",
        SLICE_NONE,
        "self._handed = None",
    ),
    # -- grounding.report
    *_each(
        "grounding_core.grounding.report.GroundingReport.__rich__",
        STYLE_CASE,
        'return Text(f"The grounding check failed: {error}", style="BOLD RED")',
        'return Text(f"Nothing was checked: {self.skipped_reason}", style="YELLOW")',
    ),
    *_each(
        "grounding_core.grounding.report.GroundingReport._repr_html_",
        FALSY_NONE,
        "return self.html(full_document=None)",
    ),
    *_each(
        "grounding_core.grounding.report.GroundingReport.metadata",
        ZIP_STRICT,
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=None):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, ):',
        'for claim_metadata, claim in zip(base["claims"], result.claims, strict=False):',
    ),
    *_each(
        "grounding_core.grounding.report.GroundingReport.metadata",
        UNREAD_STAND_IN,
        "result = self.result or GroundingResult(None, None)  # a failed check: every key, no "
        "claims",
        'result = self.result or GroundingResult("XXXX", None)  # a failed check: every key, no '
        "claims",
    ),
    # -- metadata
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        "a fast path: without it to_jsonable turns the empty tuple or mapping into [] or {}, "
        "which the next test drops",
        "if value == () and value == {}:",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        TYPE_FAST_PATH,
        "if type(None) is not float:",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        "only the last field (precomputed_expression_values given as a list) is empty after "
        "to_jsonable and not before: stopping there drops nothing",
        "break",
    ),
    *_each(
        "grounding_core.metadata.chunk_metadata",
        EMPTY_FIELD,
        "{k: list(v) for k, v in chunk.model_scores.items()} if (chunk.model_scores) or True "
        "else {}",
        "[neighbour_metadata(c) for c in chunk.previous_chunks] if (chunk.previous_chunks) or True "
        "else []",
        "[neighbour_metadata(c) for c in chunk.next_chunks] if (chunk.next_chunks) or True else []",
        "[a.to_dict() for a in chunk.annotation_metadata] if (chunk.annotation_metadata) or True "
        "else []",
    ),
    *_each(
        "grounding_core.metadata.rank_signals_metadata",
        ATTRGETTER_ZIP,
        "for name, value in zip(_RANK_SIGNAL_FIELDS, _rank_signal_values(signals), strict=None):",
        "for name, value in zip(_RANK_SIGNAL_FIELDS, _rank_signal_values(signals), ):",
        "for name, value in zip(_RANK_SIGNAL_FIELDS, _rank_signal_values(signals), strict=False):",
    ),
    # -- ranking
    *_each(
        "grounding_core.ranking._ranked",
        RANK_SCORE_PLACES,
        "ranked.append(RankedRecord(index, records[index].id, round(item.score, 5)))",
    ),
    # -- search, views
    *_each(
        "grounding_core.search.results._chunk",
        EMPTY_FIELD,
        "tuple(contents) if (contents) or True else (),",
        "tuple(map(_annotation, annotations)) if (annotations) or True else (),",
        "tuple(urls) if (urls) or True else (),",
    ),
    *_each(
        "grounding_core.search.results._chunk",
        NO_NEIGHBOURS,
        'neighbours = chunk.chunk_metadata if (has("chunk_metadata")) or True else None',
    ),
    *_each(
        "grounding_core.search.results._chunk",
        NO_SEPARATOR,
        'document_name.rpartition("/")[2] if (sep) or True else "",',
        'document_name if (sep) or True else "",',
    ),
    *_each(
        "grounding_core.search.results._chunk",
        DOCUMENT_CACHE,
        "(documents or _Documents()).struct_data(None, document),",
    ),
    *_each(
        "grounding_core.search.results._model_scores",
        EMPTY_FIELD,
        "return {k: tuple(v.values) for k, v in scores.items()} if (scores) or True else {}",
    ),
    *_each(
        "grounding_core.search.results._parts_text",
        "a missing text is dropped by the isinstance(p, str) filter, whatever the default",
        "p.get(text_key, None)",
        "p.get(text_key, )",
    ),
    *_each(
        "grounding_core.search.results._rank_signals",
        EMPTY_FIELD,
        "{s.name: s.value for s in custom} if (custom) or True else {},",
        "tuple(precomputed) if (precomputed) or True else (),",
    ),
    *_each(
        "grounding_core.search.results.chunks_from_results",
        DOCUMENT_CACHE,
        "documents = None",
        "_chunk(result.chunk, None, _rank_signals(result), _model_scores(result))",
    ),
    *_each(
        "grounding_core.search.results._Documents.struct_data",
        DOCUMENT_CACHE,
        "found = None",
        "found = self._read.get(None)",
        "if found is not None and found[1] == document:",
        "self._read[name] = None",
    ),
    *_each(
        "grounding_core.search.results._Documents.struct_data",
        "a fast path: a shallow copy is enough for flat struct data; the deep copy makes an "
        "equal dict of its own",
        "return dict(found[1]) if (found[2]) and False else copy.deepcopy(found[1])",
    ),
    *_each(
        "grounding_core.search.summaries.DiscoveryEngineSearchSummary.aanswer",
        FIRST_PAGE,
        "response = (await afirst_pages(pager.pages, 1))[0]",
    ),
    *_each(
        "grounding_core.views.annotate.annotate_grounding",
        "the tag only keeps text keys apart from source-index keys (ints); any tag does",
        'key = source_index if source_index is not None else ("XXtextXX", chunk.text)',
        'key = source_index if source_index is not None else ("TEXT", chunk.text)',
    ),
    *_each(
        "grounding_core.views.annotate.AnnotatedText.pieces",
        "a located segment has 0 <= start < end, so its end is never 0",
        "start, end = segment.start or 0, segment.end or 1",
    ),
    *_each(
        "grounding_core.views.html._sha256",
        CODEC_CASE,
        'digest = hashlib.sha256(source.encode("UTF-8")).digest()',
        'return "\'sha256-" + base64.b64encode(digest).decode("ASCII") + "\'"',
    ),
    *_each(
        "grounding_core.views.html._text",
        "quote=True is html.escape's default",
        "return html.escape(printable(value), )",
    ),
    *_each(
        "grounding_core.views.html.answer_html",
        "extra is still empty here: = and += give the same text",
        "extra = f'<p class=\"gk-error\">The service gave no answer ({_text(reasons)}).</p>'",
    ),
    *_each(
        "grounding_core.views.html._Page.__post_init__",
        "repr() escapes lone surrogates, so the encoding never meets a character to replace",
        'digest = hashlib.sha256(repr((self.title, self.text)).encode("utf-8", "XXreplaceXX"))',
        'digest = hashlib.sha256(repr((self.title, self.text)).encode("utf-8", "REPLACE"))',
        'digest = hashlib.sha256(repr((self.title, self.text)).encode("utf-8", ))',
    ),
    *_each(
        "grounding_core.views.html._Page.__post_init__",
        CODEC_CASE,
        'digest = hashlib.sha256(repr((self.title, self.text)).encode("UTF-8", "replace"))',
    ),
    *_each(
        "grounding_core.views.html._Page.note",
        "the only caller keeps a note when it is true: None is falsy, like the empty note",
        "return _NOTES.get(segment.level, None)",
        "return _NOTES.get(segment.level, )",
    ),
    *_each(
        "grounding_core.views.terminal._body",
        STYLE_CASE,
        'body.append("".join(f"[{n}]" for n in segment.numbers), style="CYAN")',
    ),
    *_each(
        "grounding_core.views.terminal._body",
        "the default mark is empty: rich adds no span for empty text, so its style is never read",
        'mark, style = _MARKS.get(segment.level, ("", "XXXX"))',
    ),
    *_each(
        "grounding_core.views.terminal._summary",
        STYLE_CASE,
        'line.append(f"{score_label} ", style="BOLD")',
        'line.append(format_score(text.score), style="BOLD")',
        'line.append(f" · {words}", style="GREEN" if passed else "bold red")',
        'line.append(f" · {words}", style="green" if passed else "BOLD RED")',
        'style="DIM",',
        'line.append(f"{count} {LEVEL_LABELS[level]}", style=LEVEL_STYLES[level] if count '
        'else "DIM")',
    ),
    *_each(
        "grounding_core.views.terminal.annotated_rich",
        STYLE_CASE,
        'lines = Text("Unsupported claims", style="BOLD RED")',
        'lines.append("\\n  ✘ ", style="RED")',
        'lines = Text("Sources", style="BOLD")',
        'lines.append(f"\\n  [{source.number}] ", style="CYAN")',
        'lines.append(f"  {one_line(source.uri)}", style="DIM")',
    ),
    *_each(
        "grounding_core.views.terminal.annotated_rich",
        "rich renders an unknown style as no style: the mark keeps its line's bold red",
        'lines.append("\\n  ✘ ", style="XXredXX")',
    ),
    *_each(
        "grounding_core.views.terminal.answer_rich",
        STYLE_CASE,
        "return Text(f\"No answer ({one_line(', '.join(answer.skipped_reasons))})\", "
        'style="YELLOW")',
    ),
)

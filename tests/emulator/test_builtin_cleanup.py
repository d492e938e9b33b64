"""The built-in corpus is free of duplicate text and hard wraps, and keeps every piece of text."""

from __future__ import annotations

import re
from collections import Counter
from pydoc_data import topics

import pytest

from grounding_emulator import DataStore
from grounding_emulator.corpus.builtin import builtin_documents
from grounding_emulator.corpus.chunking import blocks_from_plain_text
from grounding_emulator.corpus.unwrap import unwrap_paragraph
from grounding_emulator.search.engine import SearchParams, chunk_hits, search


def flat(text: str) -> str:
    """Whitespace collapsed, and a word hyphenated at a line end joined again."""
    return re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(text.split()))


@pytest.fixture(scope="module")
def sources():
    return list(builtin_documents())


@pytest.fixture(scope="module")
def bm25_store(sources):
    return DataStore.build("python-docs", sources)


def test_no_block_of_text_is_in_two_documents(sources):
    owners = Counter()
    for source in sources:
        texts = {flat(b.text) for b in source.blocks if b.kind != "heading"}
        owners.update(t for t in texts if len(t) >= 40)
    assert [text for text, count in owners.items() if count > 1] == []


def test_every_piece_of_text_stays_reachable(sources):
    corpus = " ".join(flat(s.document.content) for s in sources)
    missing = [
        (label, flat(block.text)[:60])
        for label, text in topics.topics.items()
        for block in blocks_from_plain_text(text)
        if flat(block.text) not in corpus
    ]
    assert missing == []


def test_aggregate_and_alias_topics_keep_only_their_own_text(sources):
    documents = {s.document.id: s.document for s in sources}
    assert "else" not in documents  # the same text as "if"
    assert documents["if"].title == 'The "if" statement'
    compound = documents["compound"].content
    assert "The match statement is used for pattern matching." in compound
    assert 'The "for" statement is used to iterate over the elements' not in compound
    assert 'The "for" statement is used to iterate over the elements' in documents["for"].content


def test_prose_is_unwrapped_and_code_is_kept(sources):
    with_statement = next(s.document for s in sources if s.document.id == "with")
    assert (
        'The "with" statement is used to wrap the execution of a block with methods defined by '
        "a context manager (see section With Statement Context Managers)."
    ) in with_statement.content
    assert "   with EXPRESSION as TARGET:\n       SUITE" in with_statement.content


def test_the_specific_topic_ranks_first(bm25_store):
    page = search(bm25_store, SearchParams(query="for statement", page_size=3, mode="chunks"))
    assert chunk_hits(page)[0].document.id == "for"


def test_with_statement_chunks_are_distinct(bm25_store):
    page = search(
        bm25_store,
        SearchParams(query="How does the with statement work?", page_size=10, mode="chunks"),
    )
    contents = [flat(h.chunk.content) for h in chunk_hits(page)]
    assert len(contents) == len(set(contents))
    assert chunk_hits(page)[0].document.id == "with"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The with statement is used to wrap the execution of a block\n"
            "with methods defined by a context manager.",
            "The with statement is used to wrap the execution of a block with methods defined by "
            "a context manager.",
        ),
        (
            'This object is accessed through the literal "..." or the built-\n'
            'in name "Ellipsis".  Its truth value is true.',
            'This object is accessed through the literal "..." or the built-in name "Ellipsis".  '
            "Its truth value is true.",
        ),
        (
            '1. The context expression (the expression given in the "with_item") is\n'
            "   evaluated to obtain a context manager.",
            '1. The context expression (the expression given in the "with_item") is evaluated to '
            "obtain a context manager.",
        ),
        (
            "Direct Call\n   The simplest and least common call is when user code directly\n"
            '   invokes a descriptor method:    "x.__get__(a)".',
            "Direct Call\n   The simplest and least common call is when user code directly "
            'invokes a descriptor method:    "x.__get__(a)".',
        ),
        ("   x = 1\n   y = 2", "   x = 1\n   y = 2"),
        ("   with A() as a:\n       with B() as b:\n           SUITE", None),
        (
            '   for_stmt ::= "for" target_list "in" starred_list ":" suite\n   ["else" ":" suite]',
            None,
        ),
        ("+-----+-----+\n| a   | b   |\n+-----+-----+", None),
        (">>> 'gg' in 'eggs'\nTrue", None),
    ],
)
def test_unwrap_paragraph(text, expected):
    assert unwrap_paragraph(text) == (text if expected is None else expected)

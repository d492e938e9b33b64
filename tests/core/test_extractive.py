"""extractive_answer: the offline stand-in LLM's one rule, on prompts shaped as the frameworks'."""

from __future__ import annotations

import pytest

from grounding_core import DEFAULT_EXTRACTIVE_SENTENCES, extractive_answer

CONTEXT = (
    "Generators are written like regular functions.\n"
    "A generator yields its values lazily, one at a time.\n\n"
    "Lists hold their values in order. Lists can grow."
)


def test_it_copies_the_sentences_that_best_overlap_the_question_in_prompt_order():
    question = "Question: How does a generator yield its values?"
    prompt = f"Answer from the context only.\n\nContext:\n{CONTEXT}\n\n{question}"
    assert DEFAULT_EXTRACTIVE_SENTENCES == 2
    assert extractive_answer(prompt) == (
        "A generator yields its values lazily, one at a time. Lists hold their values in order."
    )
    assert extractive_answer(prompt, sentences=1) == (
        "A generator yields its values lazily, one at a time."
    )


def test_the_question_and_the_instructions_are_not_copied():
    # LlamaIndex's default question-answering prompt: nodes between rules, "Query:" and "Answer:".
    prompt = (
        "Context information is below.\n---------------------\nsource: file:///lists.md\n\n"
        f"{CONTEXT}\n---------------------\n"
        "Given the context information and not prior knowledge, answer the query.\n"
        "Query: What do lists hold?\nAnswer: "
    )
    assert extractive_answer(prompt, sentences=1) == "Lists hold their values in order."


def test_a_question_without_a_question_mark_is_the_last_paragraph():
    prompt = f"{CONTEXT}\n\nExplain how lists grow"
    assert extractive_answer(prompt, sentences=1) == "Lists hold their values in order."


def test_the_invented_sentence_comes_last():
    prompt = f"{CONTEXT}\n\nWhat do lists hold?"
    assert extractive_answer(prompt, sentences=1, invent="Lists were added in 1991.") == (
        "Lists hold their values in order. Lists were added in 1991."
    )
    assert extractive_answer("", invent="Made up.") == "Made up."


def test_unspaced_scripts_overlap_by_character_pairs():
    prompt = (
        "無料プランには5GBのストレージが含まれます。有料プランは月額千円です。\n\n"
        "無料プランのストレージは何GBですか？"
    )
    assert extractive_answer(prompt, sentences=1) == "無料プランには5GBのストレージが含まれます。"


def test_fragments_and_lowercase_continuations_are_not_sentences():
    prompt = "Short one.\nsee the section on generators for more detail.\n\nWhat is it?"
    assert extractive_answer(prompt) == ""


def test_sentences_must_be_positive():
    with pytest.raises(ValueError, match="sentences must be at least 1, got 0"):
        extractive_answer("Question?", sentences=0)

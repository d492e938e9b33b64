"""``grounding_core.extractive``: ``extractive_answer``, the offline stand-in LLM.

Covers its one rule on prompts shaped as the frameworks' (the question: the last paragraph
that asks, else the last one, without its ``Label:``; the candidates: every other sentence of
at least 20 characters that starts a sentence; the answer: the best overlapping ones in the
prompt's order, then ``invent``), character pairs of unspaced scripts, the inverse document
frequency that lets a rare question word win, and its edges (no paragraphs, a fragment, a
sentence at exactly the minimum length, ``sentences`` below 1).
"""

from __future__ import annotations

import pytest

from grounding_core import extractive_answer
from grounding_core.extractive import DEFAULT_EXTRACTIVE_SENTENCES

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
    # Every sentence of the context, and never the instruction before its "Context:" heading.
    assert extractive_answer(prompt, sentences=9) == (
        "Generators are written like regular functions. "
        "A generator yields its values lazily, one at a time. "
        "Lists hold their values in order."
    )


EXAMPLES_PROMPT = "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("What is a context manager?", "A generator yields its values lazily, one at a time."),
        (
            "How do I answer from a generator?",
            "A generator yields its values lazily, one at a time.",
        ),
        ("Can I use only the context manager?", "Generators are written like regular functions."),
    ],
)
def test_the_examples_instruction_is_never_copied_even_when_it_shares_the_questions_words(
    question, answer
):
    # Issue 37: on the examples' prompt the instruction, which shares "context", "answer" or
    # "only" with the question, was copied first, and the check then flagged it.
    prompt = EXAMPLES_PROMPT.format(context=CONTEXT, question=question)
    assert extractive_answer(prompt, sentences=1) == answer
    assert "Answer from the context only." not in extractive_answer(prompt, sentences=9)


def test_llamaindex_instructions_around_the_rules_are_never_copied():
    prompt = (
        "Context information is below.\n---------------------\n"
        f"{CONTEXT}\n---------------------\n"
        "Given the context information and not prior knowledge, answer the query.\n"
        "Query: What is the query context?\nAnswer: "
    )
    assert extractive_answer(prompt, sentences=9) == (
        "Generators are written like regular functions. "
        "A generator yields its values lazily, one at a time. "
        "Lists hold their values in order."
    )


def test_instructions_after_the_question_are_not_candidates():
    prompt = (
        "Lists hold their values in order.\n\nWhat do lists hold?\n\n"
        "Answer in one sentence and hold nothing back."
    )
    assert extractive_answer(prompt, sentences=9) == "Lists hold their values in order."


def test_a_marker_after_the_question_leaves_every_earlier_paragraph_context():
    prompt = "Lists hold their values in order.\n\nWhat do lists hold?\nAnswer:"
    assert extractive_answer(prompt, sentences=9) == "Lists hold their values in order."


def test_the_question_and_the_instructions_are_not_copied():
    # LlamaIndex's default question-answering prompt: nodes between rules, "Query:" and "Answer:".
    prompt = (
        "Context information is below.\n---------------------\nsource: file:///lists.md\n\n"
        f"{CONTEXT}\n---------------------\n"
        "Given the context information and not prior knowledge, answer the query.\n"
        "Query: What do lists hold?\nAnswer: "
    )
    assert extractive_answer(prompt, sentences=1) == "Lists hold their values in order."


def test_the_question_is_the_last_paragraph_asking_even_when_an_instruction_follows_it():
    prompt = (
        "Context:\nLists hold values in order.\nGenerators are written like functions.\n\n"
        "What are generators?\n\nAnswer in one sentence please now."
    )
    assert extractive_answer(prompt, sentences=1) == "Generators are written like functions."


def test_the_last_paragraph_that_asks_is_the_question():
    prompt = (
        "Lists hold values in order.\nSets hold unique values.\n\nWhat do sets hold?\n\nBe brief."
    )
    assert extractive_answer(prompt, sentences=1) == "Sets hold unique values."


def test_a_question_ending_with_a_full_width_question_mark_is_the_question():
    prompt = (
        "有料プランは月額千円で、毎月の請求書がメールで届きます。"
        "無料プランには5GBのストレージが含まれます。\n\n無料プランのストレージは何GBですか？"
    )
    assert extractive_answer(prompt, sentences=1) == "無料プランには5GBのストレージが含まれます。"


def test_a_question_without_a_question_mark_is_the_last_paragraph():
    prompt = f"{CONTEXT}\n\nExplain how lists grow"
    assert extractive_answer(prompt, sentences=1) == "Lists hold their values in order."


def test_without_a_question_mark_the_last_sentence_of_a_lone_paragraph_is_the_question():
    prompt = "Generators yield values lazily. Tell me about generators."
    assert extractive_answer(prompt, sentences=1) == "Generators yield values lazily."
    assert extractive_answer(prompt, sentences=2) == "Generators yield values lazily."


def test_a_label_before_a_later_sentence_of_the_question_paragraph_is_stripped():
    prompt = (
        "Lists hold values in order.\nGenerators are written like functions.\n\n"
        "Use the context. Query: Generators?"
    )
    assert extractive_answer(prompt, sentences=1) == "Generators are written like functions."


def test_a_label_at_the_start_of_a_paragraph_is_stripped_from_the_copied_sentence():
    prompt = "Note: Generators are written like functions.\n\nQuestion: What are generators?"
    assert extractive_answer(prompt) == "Generators are written like functions."


@pytest.mark.parametrize(
    "separator",
    ["\n\n", "\n---\n", "\n  \n", "\nContext:\n"],
    ids=["blank-line", "rule", "blank-with-spaces", "line-ending-with-a-colon"],
)
def test_paragraphs_end_at_a_blank_line_a_rule_or_a_label_line(separator):
    prompt = f"Generators are written like functions.{separator}What are generators?"
    assert extractive_answer(prompt) == "Generators are written like functions."


def test_lines_of_a_paragraph_are_joined_with_single_spaces():
    prompt = "Generators   are written\n   like functions.\n\nWhat are generators?"
    assert extractive_answer(prompt) == "Generators are written like functions."


def test_a_repeated_sentence_is_copied_once():
    prompt = (
        "Generators are written like functions.\n\nGenerators are written like functions.\n\n"
        "What are generators?"
    )
    assert extractive_answer(prompt) == "Generators are written like functions."


def test_a_sentence_of_exactly_the_minimum_length_is_a_candidate():
    assert len("Generators are fast.") == 20
    assert extractive_answer("Generators are fast.\n\nWhat are generators?") == (
        "Generators are fast."
    )
    assert len("Generators are go.") == 18
    assert extractive_answer("Generators are go.\n\nWhat are generators?") == ""
    assert extractive_answer("Generators are slow\n\nWhat are generators?") == ""  # no end


@pytest.mark.parametrize("end", [".", "!", "?", "。", "！", "？"])
def test_every_sentence_end_ends_a_candidate(end):
    sentence = f"Generators are really fast{end}"
    assert extractive_answer(f"{sentence}\n\nWhat are generators?") == sentence


def test_fragments_and_lowercase_continuations_are_not_sentences():
    prompt = "Short one.\nsee the section on generators for more detail.\n\nWhat is it?"
    assert extractive_answer(prompt) == ""


def test_the_invented_sentence_comes_last():
    prompt = f"{CONTEXT}\n\nWhat do lists hold?"
    assert extractive_answer(prompt, sentences=1, invent="Lists were added in 1991.") == (
        "Lists hold their values in order. Lists were added in 1991."
    )
    assert extractive_answer("", invent="Made up.") == "Made up."
    assert extractive_answer("---\n\n   \n") == ""
    assert extractive_answer("Short.\n\nWhat?", invent="Made up.") == "Made up."


def test_unspaced_scripts_overlap_by_character_pairs():
    prompt = (
        "無料プランには5GBのストレージが含まれます。有料プランは月額千円です。\n\n"
        "無料プランのストレージは何GBですか？"
    )
    assert extractive_answer(prompt, sentences=1) == "無料プランには5GBのストレージが含まれます。"


@pytest.mark.parametrize(
    ("run", "word"),
    [
        ("ひらがな", "ひらいた"),
        ("カタカナ", "カタログ"),
        ("\u3400\u3401\u3402", "\u3400\u3401x"),
        ("東京都", "東京タワー"),
        ("한국어", "한국말"),
    ],
    ids=["hiragana", "katakana", "cjk-extension-a", "cjk", "hangul"],
)
def test_each_unspaced_script_overlaps_by_a_shared_character_pair(run, word):
    target = f"The word {word} is written here."
    prompt = f"Nothing in common is said in this line.\n{target}\n\nWhat is {run}?"
    assert extractive_answer(prompt, sentences=1) == target


def test_a_single_character_of_an_unspaced_run_is_no_term():
    # Only pairs (and whole words) count: 京 alone shares nothing with 東京.
    prompt = (
        "Nothing in common is said in this line.\nThe kanji 京 stands alone here.\n\n"
        "Tell me about 東京?"
    )
    assert extractive_answer(prompt, sentences=1) == "Nothing in common is said in this line."


def test_a_rare_question_word_outweighs_two_that_almost_every_candidate_has():
    common = [
        "Alpha and beta are first here.",
        "Alpha and beta appear again now.",
        "Alpha and beta appear a third time.",
        "Alpha and beta appear a fourth time.",
        "Alpha and beta appear a fifth time.",
    ]
    context = "\n".join([common[0], "Gamma is the rare word here.", *common[1:]])
    prompt = f"Context:\n{context}\n\nQuestion: Which alpha beta gamma?"
    # log(1 + 6/1) = 1.95 beats 2 * log(1 + 6/5) = 1.58.
    assert extractive_answer(prompt, sentences=1) == "Gamma is the rare word here."


def test_among_equals_the_earlier_sentence_wins_and_case_does_not_matter():
    prompt = "Lists GROW on demand here.\nLists grow in place too.\n\nHow do lists grow?"
    assert extractive_answer(prompt, sentences=1) == "Lists GROW on demand here."


@pytest.mark.parametrize("sentences", [0, -1])
def test_sentences_must_be_at_least_one(sentences):
    with pytest.raises(ValueError, match=f"sentences must be at least 1, got {sentences}"):
        extractive_answer("Question?", sentences=sentences)


SYSTEM_INSTRUCTION = (
    "Answer from the context only, in one or two sentences. If the context does not say, say "
    "that you do not know."
)
INLINE_CONTEXT = f"Context: {CONTEXT}\n\nQuestion: What does a generator do with its values?"


def test_a_system_instruction_is_not_copied_when_the_prompt_brings_its_context():
    # Issue 37: the instruction shares "context" and "do" with the question.
    answer = extractive_answer(INLINE_CONTEXT, sentences=9, system=SYSTEM_INSTRUCTION)
    assert answer == (
        "Generators are written like regular functions. A generator yields its values lazily, "
        "one at a time. Lists hold their values in order."
    )
    assert "context" not in answer.casefold()


def test_a_system_message_is_the_context_when_the_prompt_is_the_question_alone():
    system = f"Use the following context to answer.\n\n{CONTEXT}"
    question = "What does a generator do with its values?"
    assert extractive_answer(question, sentences=1, system=system) == (
        "A generator yields its values lazily, one at a time."
    )
    # ... and so it is when the question's paragraph has earlier sentences of its own
    asked = f"Please be brief. {question}"
    assert extractive_answer(asked, sentences=1, system=system) == (
        "A generator yields its values lazily, one at a time."
    )


def test_an_empty_prompt_with_a_system_message_reads_the_system_message():
    assert extractive_answer("", sentences=1, system="") == ""
    assert extractive_answer("", sentences=1, system=f"{CONTEXT}\n\nWhat yields lazily?") == (
        "A generator yields its values lazily, one at a time."
    )

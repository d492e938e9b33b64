"""extractive_answer's edges, pinned exactly: where the question is taken from, which labels are
stripped, the shortest sentence that counts, character pairs of unspaced scripts and the inverse
document frequency that lets a rare question word beat common ones.
"""

from __future__ import annotations

from grounding_core import extractive_answer
from grounding_core.extractive import _terms


def test_the_question_is_the_last_paragraph_asking_even_when_an_instruction_follows_it():
    prompt = (
        "Context:\nLists hold values in order.\nGenerators are written like functions.\n\n"
        "What are generators?\n\nAnswer in one sentence please now."
    )
    assert extractive_answer(prompt, sentences=1) == "Generators are written like functions."


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


def test_a_sentence_of_exactly_the_minimum_length_is_a_candidate():
    assert len("Generators are fast.") == 20
    assert extractive_answer("Generators are fast.\n\nWhat are generators?") == (
        "Generators are fast."
    )
    assert extractive_answer("Generators are go.\n\nWhat are generators?") == ""


def test_unspaced_runs_add_each_pair_of_adjacent_characters():
    assert _terms("生成器") == {"生成器", "生成", "成器"}
    assert _terms("ab 生成") == {"ab", "生成"}


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

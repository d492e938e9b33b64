"""ExtractiveLLM: the offline stand-in LLM answers from the retrieved context, unlike MockLLM."""

from __future__ import annotations

from llama_index.core.llms import LLM, ChatMessage
from llama_index.core.query_engine import RetrieverQueryEngine

from llamaindex_grounding import DiscoveryEngineRetriever, ExtractiveLLM, GroundedQueryEngine

QUESTION = "How does the with statement work?"
PROMPT = (
    "Lists hold their values in order.\n\nA generator yields its values lazily.\n\n"
    "What does a generator do?"
)
ANSWER = (
    'The "with" statement is used to wrap the execution of a block with methods defined by a '
    "context manager (see section With Statement Context Managers). If a target was included "
    'in the "with" statement, the return value from "__enter__()" is assigned to it.'
)


def test_class():
    assert LLM in ExtractiveLLM.__mro__
    assert ExtractiveLLM.class_name() == "ExtractiveLLM"
    assert ExtractiveLLM().metadata.model_name == "extractive-offline"


def test_it_completes_streams_and_chats_from_the_context():
    llm = ExtractiveLLM(sentences=1)
    assert llm.complete(PROMPT).text == "A generator yields its values lazily."
    steps = list(llm.stream_complete(PROMPT))
    assert [step.delta for step in steps] == [
        "A",
        " generator",
        " yields",
        " its",
        " values",
        " lazily.",
    ]
    assert steps[-1].text == "A generator yields its values lazily."
    reply = llm.chat([ChatMessage(role="user", content=PROMPT)])
    assert reply.message.content == "A generator yields its values lazily."
    invented = ExtractiveLLM(sentences=1, invent="Generators were added in 1991.")
    assert invented.complete(PROMPT).text == (
        "A generator yields its values lazily. Generators were added in 1991."
    )


def _engine(emulator, llm, streaming=False):
    retriever = DiscoveryEngineRetriever(
        project_id="p",
        data_store_id="python-docs",
        similarity_top_k=3,
        emulator_host=emulator.address,
    )
    inner = RetrieverQueryEngine.from_args(retriever, llm=llm, streaming=streaming)
    return GroundedQueryEngine(inner, project_id="p", emulator_host=emulator.address)


def test_a_query_engine_on_it_gives_an_answer_the_check_supports(emulator):
    response = _engine(emulator, ExtractiveLLM()).query(QUESTION)
    assert response.response == ANSWER  # not the prompt, as MockLLM would give
    grounding = response.metadata["grounding"]
    assert grounding["support_score"] == 1.0
    assert [claim["status"] for claim in grounding["claims"]] == ["supported", "supported"]


def test_streaming_and_an_invented_sentence(emulator):
    invented = "The with statement was added in Python 1.0."
    response = _engine(emulator, ExtractiveLLM(invent=invented), streaming=True).query(QUESTION)
    text = "".join(response.response_gen)
    assert text == f"{ANSWER} {invented}"
    claims = response.metadata["grounding"]["claims"]
    assert [claim["status"] for claim in claims] == ["supported", "supported", "unsupported"]
    assert claims[-1]["text"] == invented


def test_on_llamaindex_question_answering_prompt_it_never_answers_with_the_instructions():
    # Issue 37: the default prompt's "Context information is below." and "Given the context
    # information ..., answer the query." share the question's words and were copied.
    from llama_index.core.prompts.default_prompts import DEFAULT_TEXT_QA_PROMPT

    prompt = DEFAULT_TEXT_QA_PROMPT.format(
        context_str="Lists hold their values in order.\n\nA generator yields its values lazily.",
        query_str="What is the query context information?",
    )
    assert ExtractiveLLM(sentences=9).complete(prompt).text == (
        "Lists hold their values in order. A generator yields its values lazily."
    )


def test_a_system_instruction_in_a_chat_is_never_copied():
    # Issue 37: the instruction in a system message of its own, the context in the user's.
    instruction = "Answer from the context only. If the context does not say, say you do not know."
    context = "Lists hold their values in order.\n\nA generator yields its values lazily."
    messages = [
        ChatMessage(role="system", content=instruction),
        ChatMessage(role="user", content=f"Context: {context}\n\nQuestion: What does it say?"),
    ]
    llm = ExtractiveLLM(sentences=9)
    expected = "Lists hold their values in order. A generator yields its values lazily."
    assert llm.chat(messages).message.content == expected
    streamed = list(llm.stream_chat(messages))
    assert "".join(r.delta or "" for r in streamed) == streamed[-1].message.content == expected
    # A system message that holds the context is read.
    holding = [
        ChatMessage(role="system", content=f"Use this context.\n\n{context}"),
        ChatMessage(role="user", content="How does a generator yield?"),
    ]
    assert ExtractiveLLM(sentences=1).chat(holding).message.content == (
        "A generator yields its values lazily."
    )

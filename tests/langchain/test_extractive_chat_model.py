"""ExtractiveChatModel: the offline stand-in chat model answers from the retrieved context."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from langchain_grounding import DiscoveryEngineRetriever, ExtractiveChatModel, GroundingChecker

QUESTION = "How does the with statement work?"
PROMPT = ChatPromptTemplate.from_template(
    "Answer from the context only.\n\nContext:\n{context}\n\nQuestion: {question}"
)
ANSWER = (
    'The "with" statement is used to wrap the execution of a block with methods defined by a '
    "context manager (see section With Statement Context Managers). If a target was included "
    'in the "with" statement, the return value from "__enter__()" is assigned to it.'
)
CONTEXT = "Lists hold their values in order.\n\nA generator yields its values lazily."


def test_class():
    assert BaseChatModel in ExtractiveChatModel.__mro__


def test_it_answers_from_the_context_of_its_messages():
    llm = ExtractiveChatModel(sentences=1)
    messages = [SystemMessage(f"Context:\n{CONTEXT}"), HumanMessage("What does a generator do?")]
    reply = llm.invoke(messages)
    assert isinstance(reply, AIMessage)
    assert reply.content == "A generator yields its values lazily."
    # LangChain closes a stream with an empty chunk of its own.
    chunks = [chunk.content for chunk in llm.stream(messages) if chunk.content]
    assert chunks == ["A", " generator", " yields", " its", " values", " lazily."]
    invented = ExtractiveChatModel(sentences=1, invent="Generators were added in 1991.")
    assert invented.invoke(messages).content == (
        "A generator yields its values lazily. Generators were added in 1991."
    )


def test_a_rag_chain_on_it_gives_an_answer_the_check_supports(emulator):
    retriever = DiscoveryEngineRetriever(
        project_id="p", data_store_id="python-docs", k=3, emulator_host=emulator.address
    )
    rag = (
        {
            "context": retriever | (lambda docs: "\n\n".join(d.page_content for d in docs)),
            "question": RunnablePassthrough(),
        }
        | PROMPT
        | ExtractiveChatModel()
        | StrOutputParser()
    )
    answer = rag.invoke(QUESTION)
    assert answer == ANSWER  # the context sentences closest to the question, not the prompt
    checker = GroundingChecker(project_id="p", emulator_host=emulator.address)
    report = checker.check(answer, retriever.invoke(QUESTION))
    assert report.support_score == 1.0
    assert [claim.status for claim in report.claims] == ["supported", "supported"]


def test_bound_to_tools_it_searches_then_answers_from_the_results():
    from langchain_core.documents import Document
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import tool

    @tool
    def search(query: str) -> str:
        """Search the docs."""
        return query

    llm = ExtractiveChatModel(sentences=1).bind_tools([search])
    question = HumanMessage("How does a generator yield values?")
    call = llm.invoke([question])
    assert call.content == ""
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [
        ("search", {"query": "How does a generator yield values?"})
    ]
    found = Document("Lists hold values in order. A generator yields values lazily.")
    result = ToolMessage("[1] heading", tool_call_id=call.tool_calls[0]["id"], artifact=[found])
    answer = llm.invoke([question, call, result])
    assert (answer.content, answer.tool_calls) == ("A generator yields values lazily.", [])
    # A follow-up instruction is answered from the same question and results.
    again = llm.invoke([question, call, result, answer, HumanMessage("Answer again.")])
    assert again.content == "A generator yields values lazily."
    streamed = [c for c in llm.stream([question]) if c.tool_call_chunks]
    assert [c.tool_call_chunks[0]["name"] for c in streamed] == ["search"]
    assert (
        streamed[0].tool_call_chunks[0]["args"] == '{"query": "How does a generator yield values?"}'
    )

    assert ExtractiveChatModel().invoke([question]).tool_calls == []  # unbound: no calls


def test_on_the_examples_prompt_it_never_answers_with_the_instruction():
    # Issue 37: the examples' instruction shares "context" with the question and was copied.
    messages = PROMPT.invoke({"context": CONTEXT, "question": "What is a context manager?"})
    reply = ExtractiveChatModel(sentences=9).invoke(messages)
    assert reply.content == (
        "Lists hold their values in order. A generator yields its values lazily."
    )


SYSTEM_INSTRUCTION = (
    "Answer from the context only. If the context does not say, say that you do not know."
)


def test_a_system_instruction_before_the_template_is_never_copied():
    # Issue 37: LangChain's usual prompt, the instruction in a system message of its own.
    prompt = ChatPromptTemplate.from_messages(
        [("system", SYSTEM_INSTRUCTION), ("human", "Context: {context}\n\nQuestion: {question}")]
    )
    messages = prompt.invoke({"context": CONTEXT, "question": "What does the context say?"})
    chain = prompt | ExtractiveChatModel(sentences=9) | StrOutputParser()
    expected = "Lists hold their values in order. A generator yields its values lazily."
    assert ExtractiveChatModel(sentences=9).invoke(messages).content == expected
    assert "".join(c.text for c in ExtractiveChatModel(sentences=9).stream(messages)) == expected
    assert chain.invoke({"context": CONTEXT, "question": "What does the context say?"}) == expected


def test_a_system_message_holding_the_context_is_still_read():
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Use the following context.\n\n{context}"), ("human", "{question}")]
    )
    messages = prompt.invoke({"context": CONTEXT, "question": "How does a generator yield?"})
    reply = ExtractiveChatModel(sentences=1).invoke(messages)
    assert reply.content == "A generator yields its values lazily."

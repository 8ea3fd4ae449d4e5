"""Every prompt k2desk sends to a language model, as named constants with their placeholders.

Order inside prompts follows the prefix cache: static instructions and retrieved context first,
the question last, so consecutive calls over the same context reuse llama.cpp's evaluated prefix.
"""

# K²RAG paper §3.1.3: the generation prompt used for every answer (all methods).
# {context}: retrieved passages or step results; {question}: the user's question.
GENERATION_PROMPT = (
    "Additional Information: {context}\n"
    "Instruction: You are a smart LLM who gives an answer to the question in as little words as "
    "possible using the additional information provided above.{abstain}\n"
    "Question: {question}\n"
    "Short Answer:"
)

# Our addition to the paper's prompt (a product need and MultiHop-RAG's null questions): the
# assistant says so when the documents do not hold the answer. Inserted at {abstain} above.
ABSTAIN_HINT = " If the additional information does not contain the answer, answer exactly: Insufficient information."
ABSTAIN_ANSWER = "Insufficient information."

# Bounded-length summary by the LLM (summarizer backend "llm"). {text}, {max_words}.
SUMMARIZE_PROMPT = (
    "Summarize the following text in at most {max_words} words. Keep every name, number, date, "
    "place and claim that matters; write plain sentences, no preamble.\n\n"
    "Text:\n{text}\n\n"
    "Summary:"
)

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

# -- The reader (k2desk.methods.reader): the answer in the form the question asks for ----------
# An open question (who/which/what): the paper's generation prompt, asking for the name or phrase
# alone. No abstain hint: a small model used it as an escape (94 % of comparisons abstained);
# abstention comes from retrieval instead (reader.py). {context}, {question}, {answer} (what the
# answer must be: forms.answer_kind; "the name or short phrase" unless the question says more).
OPEN_ANSWER_PROMPT = (
    "Additional Information: {context}\n"
    "Instruction: You are a smart LLM who gives an answer to the question in as little words as "
    "possible using the additional information provided above. Answer with {answer} only, as it "
    "is written there.\n"
    "Question: {question}\n"
    "Short Answer:"
)

# The other forms a person asks in (k2desk.methods.forms): the same frame, another instruction.
# An explanation (how / why / describe). {context}, {question}.
EXPLAIN_ANSWER_PROMPT = (
    "Additional Information: {context}\n"
    "Instruction: Answer the question in one to three short sentences, using only the additional "
    "information provided above.\n"
    "Question: {question}\n"
    "Answer:"
)
# A list (several items). {context}, {question}.
LIST_ANSWER_PROMPT = (
    "Additional Information: {context}\n"
    "Instruction: Answer the question with the items only, separated by commas, written as they are "
    "in the additional information provided above.\n"
    "Question: {question}\n"
    "Answer:"
)
# A comparison that is not yes/no ("How does A differ from B?", "Which is older, A or B?").
# {context}, {question}.
COMPARE_ANSWER_PROMPT = (
    "Additional Information: {context}\n"
    "Instruction: Answer the question in as few words as possible, at most one short sentence, using "
    "the additional information provided above. When the question offers a choice, answer with the "
    "choice.\n"
    "Question: {question}\n"
    "Short Answer:"
)

# Whether the passages give a short answer to the question, scored by the model's first token
# (Yes against No) after it wrote the answer (k2desk.methods.reader); it begins as
# OPEN_ANSWER_PROMPT does, so the evidence the model just read is not read again.
# {context}, {question}, {answer}.
VERIFY_PROMPT = (
    "Additional Information: {context}\n"
    "Question: {question}\n"
    "Proposed answer: {answer}\n"
    "Does the additional information above say that this is the answer to the question? Answer Yes or No."
)

# When the passages do not support an answer (k2desk.methods.support): said plainly, with the
# closest passages shown as the sources.
NOT_IN_DOCUMENTS = "Not in your documents: they do not say this. The closest passages are listed below."
# A short answer the signals neither keep nor clearly decline (k2desk.verdict.short_answer):
# shown, with its sentence and this caution. {sentence}.
CAUTION = "The documents may say this, but the check is not sure: read the passage. “{sentence}”"
# A bridge question whose hop the documents do not answer (k2desk.hops.chain): which hop, and what
# it looked for. {step}: 1 for the first hop; {description}: as the question wrote it.
HOP_NOT_IN_DOCUMENTS = ("Not in your documents: they do not say which is {description} (step {step} of this "
                        "question). The closest passages are listed below.")
# A summary asked for by name that matches no document. {target}.
NO_SUCH_DOCUMENT = "Not in your documents: no document's name matches \"{target}\"."
# The head of a summary of several documents ({n}: how many; {more}: the ones left out).
COLLECTION_SUMMARY_HEAD = "This collection holds {n} documents."
SCOPE_SUMMARY_HEAD = "The {n} documents asked about:"
COLLECTION_SUMMARY_MORE = "… and {more} more."

# A yes/no question is split into its claims (question.claims); each claim is checked against
# its own article's evidence by the model's first-token score for "Yes" against "No", once with
# the evidence and once with CLAIM_NO_EVIDENCE (the claim's prior), so the decision is what the
# evidence changes. {context}, {claim}.
CLAIM_CHECK_PROMPT = (
    "Article excerpts:\n{context}\n\n"
    "Statement: {claim}\n"
    "Do the article excerpts support the statement? Answer Yes or No."
)
CLAIM_NO_EVIDENCE = "(none)"

# The abstention when the question names publishers the collection does not hold. {outlets}.
UNKNOWN_OUTLET_ANSWER = "Insufficient information. No document in this collection is from {outlets}."

# Bounded-length summary by the LLM (summarizer backend "llm"). {text}, {max_words}.
SUMMARIZE_PROMPT = (
    "Summarize the following text in at most {max_words} words. Keep every name, number, date, "
    "place and claim that matters; write plain sentences, no preamble.\n\n"
    "Text:\n{text}\n\n"
    "Summary:"
)

# Knowledge-graph extraction, one call per 300/100 "graph" chunk, answered under the JSON schema
# of k2desk.graph.extract (bounded lists and strings). {text}: the chunk (with its document's
# title line). The instruction comes first and the text last, so every chunk's call reuses the
# evaluated instruction prefix. No worked example: tiny models copy examples into their output.
GRAPH_EXTRACTION_PROMPT = (
    "Build a knowledge graph from the text below.\n"
    "1. Entities: the people, organizations, locations, events, products, dates and key concepts "
    "that the text names. For each give its name exactly as written in the text, its type, and a "
    "short description (at most 15 words) of what the text says about it.\n"
    "2. Relations: pairs of those entities that the text clearly connects. For each give the "
    "source and target entity names (as in your entity list), one short sentence (at most 15 "
    "words) saying how they are related, a few keywords naming the kind of relation, and its strength from 1 (weak) to "
    "10 (strong).\n"
    "Use only facts stated in the text. Do not repeat an entity or a relation. Answer in JSON.\n\n"
    "Text:\n{text}"
)

# K²RAG step (C): one sub-question per 128/10 chunk of the KG results (the paper omits its prompt).
# {chunk}: a piece of the KG results; {question}: the user's question.
SUBQUESTION_PROMPT = (
    "Knowledge graph facts:\n{chunk}\n\n"
    "Write ONE short, self-contained question about the topic of these facts that helps to answer "
    "the main question below. Name the people, organizations or things explicitly (no pronouns).\n"
    "Main question: {question}\n"
    "Sub-question:"
)

# -- KG-RAG, Chain of Explorations (k2desk.methods.coe) -------------------------------------------
# The paper's fallback when no path answers the question (Algorithm 1, line 32).
COE_APOLOGY = "I am sorry, I could not find an answer to your question."

# Planner (few-shot in the paper; one worked example here, from the paper's Figure 4, marked as
# such). Answered as JSON {"start": ..., "steps": [{"kind", "query"}]}. {question}, {max_steps}.
COE_PLAN_PROMPT = (
    "You explore a knowledge graph of entities and their relations to answer a question. Plan the "
    "exploration: first the entity to start from, then at most {max_steps} steps. A 'relation' "
    "step follows relations of the current entities (say which relation); a 'node' step looks up "
    "other entities by name.\n"
    "Example (another topic): question \"Which former husband of Elizabeth Taylor died in "
    "Chichester?\" -> start \"Elizabeth Taylor\"; steps: relation \"married to\", relation \"died in\".\n\n"
    "Question: {question}\n"
    "Plan:"
)

# Re-plan after "needs refinement" (Algorithm 1, line 22). {question}, {old_plan}, {path}, {max_steps}.
COE_REPLAN_PROMPT = (
    "You explore a knowledge graph of entities and their relations to answer a question. This plan "
    "did not work:\n{old_plan}\nIt found only:\n{path}\n"
    "Write a different plan: the entity to start from, then at most {max_steps} steps ('relation' "
    "steps follow relations of the current entities, 'node' steps look up entities by name).\n\n"
    "Question: {question}\n"
    "New plan:"
)

# Node or relation selection among ranked candidates. {question}, {step}, {candidates}.
COE_SELECT_PROMPT = (
    "Question: {question}\n"
    "Current exploration step: {step}\n"
    "Candidates from the knowledge graph:\n{candidates}\n\n"
    "Select the candidates that are relevant to this step (at most three)."
)

# Evaluation after each step (Algorithm 1, line 20). {question}, {plan}, {path}, {choices}.
COE_EVALUATE_PROMPT = (
    "Question: {question}\n"
    "Exploration plan:\n{plan}\n"
    "Facts found so far in the knowledge graph:\n{path}\n\n"
    "Decide: 'respond' if these facts answer the question; 'continue' to go on with the next "
    "planned step; 'needs refinement' if the exploration went the wrong way and needs a new plan. "
    "Choose one of: {choices}."
)

# -- LightRAG (k2desk.methods.lightrag) -----------------------------------------------------------
# Dual-level keyword extraction, after the paper's keywords prompt (appendix 7.3.3, Figure 6)
# without its worked examples (tiny models copy them). Answered as JSON under a schema that bounds
# both lists: {"high_level_keywords": [...], "low_level_keywords": [...]}. {question}.
LIGHTRAG_KEYWORDS_PROMPT = (
    "Identify the high-level and low-level keywords of the question below. High-level keywords "
    "are the overarching concepts or themes it is about; low-level keywords are the specific "
    "entities, names, details or concrete terms it mentions. Give at most 5 of each, each a short "
    "phrase. Answer in JSON with the keys \"high_level_keywords\" and \"low_level_keywords\".\n\n"
    "Question: {question}"
)

# -- Mapping the Mind (k2desk.methods.mindmap) ----------------------------------------------------
# Chain-of-thought decomposition into diverse sub-queries (paper §4.3, first step; the paper does
# not print its prompts). Answered as JSON {"reasoning": ..., "sub_queries": [...]} under a schema
# bounding both. {question}, {max_sub_queries}.
MINDMAP_SUBQUERIES_PROMPT = (
    "Break the question below into at most {max_sub_queries} short sub-queries that together cover "
    "what must be looked up to answer it. Make them diverse: each asks for a different fact. Name "
    "the people, organizations or things explicitly (no pronouns). First reason briefly, step by "
    "step, then list the sub-queries. Answer in JSON.\n\n"
    "Question: {question}"
)

# One traversal step (paper §4.3, steps 2-3): the frontier entities' properties and relations
# (structured text), summarized for the sub-query; {explore} asks for the neighbours worth
# visiting next (MINDMAP_EXPLORE_HINT; empty at the last depth). {graph}, {sub_query}, {question}.
MINDMAP_STEP_PROMPT = (
    "Knowledge graph information:\n{graph}\n\n"
    "Summarize in one or two sentences what this information says that helps to answer the "
    "sub-query, using only these facts.{explore} Answer in JSON.\n"
    "Main question: {question}\n"
    "Sub-query: {sub_query}"
)
MINDMAP_EXPLORE_HINT = (
    " Then, in \"explore\", name the neighbouring entities (the other ends of the relations above) "
    "that could help to answer the main question, or none."
)

# -- Conversations (k2desk.conversation): a follow-up made a standalone question -------------------
# Asked only when the follow-up leaves a reference open (a pronoun, "that report", a left-out
# subject); the examples are invented, about nothing any collection holds. {conversation}: the
# last turns as "Question: … / Answer: … / Sources: …" lines; {message}: the follow-up.
CONDENSE_PROMPT = (
    "Rewrite the follow-up question so that it can be understood without the conversation: replace "
    "each pronoun (it, its, he, she, they, their, there), each \"that …\" or \"this …\" and each "
    "left-out subject with the name it stands for in the conversation. Keep the follow-up's own "
    "words otherwise. If the follow-up is complete already, repeat it unchanged. Write only the "
    "rewritten question, on one line."
)
CONDENSE_EXAMPLES = (
    ("Question: Who painted the mural in the Varnholt station?\nAnswer: Ilse Marquardt\n\n"
     "Follow-up: Where did she study?", "Where did Ilse Marquardt study?"),
    ("Question: Who chairs the Elmbrook parish council?\nAnswer: Ruth Okafor\n\n"
     "Follow-up: And its secretary?", "Who is the secretary of the Elmbrook parish council?"),
    ("Question: When was the Brask Canal opened?\nAnswer: 1911\n\n"
     "Follow-up: And how long is it?", "How long is the Brask Canal?"),
    ("Question: How many members does the Tolland rowing club have?\nAnswer: 240\n\n"
     "Follow-up: What about the chess club?", "How many members does the Tolland chess club have?"),
    ("Question: Which corpus does the paper on Frisian spelling correction use?\nAnswer: the Halbertsma corpus\n\n"
     "Follow-up: Which optimizer do they train with?",
     "Which optimizer does the paper on Frisian spelling correction train with?"),
)
CONDENSE_REQUEST = "{conversation}\n\nFollow-up: {message}"

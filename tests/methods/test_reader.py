"""The reader (methods/reader.py) through the ``evidence`` method, on a real collection with the
real tiny model: which form each question gets, what each form reads, and when it abstains."""

import json

import pytest

from k2desk.config import Settings
from k2desk.engine import Engine
from k2desk.methods.reader import CLAIM_BUDGET, READ_BUDGET
from k2desk.methods.support import names_only_asked
from k2desk.verdict import DEFAULTS

ARTICLES = [
    ("Brennwald tunnel drill stops", "Valley Post", "2023-05-02T08:00:00+00:00",
     "The Brennwald tunnel drill stopped on Monday after water entered the shaft. "
     "Site manager Ilse Damaschke said the crew would pump the shaft for a week. "
     "The council had approved the tunnel budget in March."),
    ("Council backs tunnel overrun", "Harbour Ledger", "2023-05-09T08:00:00+00:00",
     "The Brennwald council approved a budget overrun of 4 million euros for the tunnel. "
     "Mayor Piet Olsen said the drill would restart in June. "
     "Residents asked for a public hearing on the tunnel costs."),
    ("Summer fair plans", "Valley Post", "2023-05-10T08:00:00+00:00",
     "The summer fair will take place on the market square in July. "
     "The organisers expect two thousand visitors and a brass band."),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory, models_dir):
    home = tmp_path_factory.mktemp("reader")
    corpus = home / "news.jsonl"
    corpus.write_text("".join(json.dumps({"title": t, "source": s, "published_at": d, "body": b}) + "\n"
                              for t, s, d, b in ARTICLES), encoding="utf-8")
    settings = Settings(home=home / "home", models_dir=models_dir, llm="smollm2-135m", threads=2, build_profile="naive")
    with Engine(settings, "news") as eng:
        eng.index([corpus])
        yield eng


def test_a_question_about_an_outlet_the_collection_lacks_is_declined_without_the_model(engine):
    llm = engine.method("evidence").ctx.llm
    calls = llm.total.calls
    out = engine.ask("According to an article by The Guardian, who manages the Brennwald tunnel site?", method="evidence")
    assert out.answer == "Insufficient information. No document in this collection is from Guardian."
    assert out.trace["reader"] == {"form": "abstain", "unknown_outlets": ["Guardian"]}
    assert out.verdict.settled  # no other reading of the question changes it (hops.chain reads it once)
    assert llm.total.calls == calls and out.llm.calls == 0


@pytest.mark.parametrize("method", ["evidence", "hybrid", "semantic"])
def test_a_yes_no_question_is_checked_claim_by_claim_against_each_outlets_articles(engine, method):
    question = ("Does the Valley Post article report that the tunnel drill stopped after water entered the shaft, "
                "while the Harbour Ledger article says the council approved a budget overrun?")
    out = engine.ask(question, method=method)
    assert out.answer in ("Yes.", "No.")
    checks = out.trace["reader"]["claims"]
    assert [c["outlets"] for c in checks] == [["Valley Post"], ["Harbour Ledger"]]
    assert out.llm.calls == 2 * len(checks) and out.llm.completion_tokens == 0  # scores only, no generation
    chunks = engine.docs.chunks([i for c in checks for i in c["chunk_ids"]])
    for check in checks:  # each claim read its own outlet's articles
        assert {chunks[i].meta["source"] for i in check["chunk_ids"]} == set(check["outlets"])
        assert check["score"] == pytest.approx(check["with_evidence"] - check["prior"], abs=1e-3)
    support = sum(c["score"] for c in checks) / len(checks)
    assert out.trace["reader"]["support"] == pytest.approx(support, abs=1e-3)
    assert (out.answer == "Yes.") == (support > DEFAULTS.claim_margin)
    llm = engine.method(method).ctx.llm
    for part in out.trace["context"].split("\n\n"):
        assert llm.count_tokens(part) <= CLAIM_BUDGET + 40  # each claim's evidence (its header besides)


def test_an_open_question_gets_one_short_line_from_the_best_sentences(engine):
    question = "Who is the site manager of the Brennwald tunnel?"
    out = engine.ask(question, method="evidence")
    reader = out.trace["reader"]
    # one reading, one more when the first answer only restates the question ("again")
    assert reader["kind"] == "factoid" and out.llm.calls == 1 + ("again" in reader)
    # the tiny model's line is kept where the sentences holding it name the site manager, else
    # declined; a line naming only the question's own names is declined before any check
    if names_only_asked(question, reader.get("candidate", out.answer)):
        assert reader["form"] == "abstain" and out.verdict.reason == "it names only whom the question names"
    else:
        assert (reader["form"] == "open") == (reader["answer_support"]["score"] >= DEFAULTS.support_min)
    assert out.answer and "\n" not in out.answer and out.llm.completion_tokens <= 32 * out.llm.calls
    context = out.trace["context"]
    assert context.startswith("Brennwald tunnel drill stops | Valley Post | ")
    assert "Site manager Ilse Damaschke" in context and "brass band" not in context
    assert out.trace["reader"]["evidence_tokens"] <= READ_BUDGET
    assert out.sources and out.sources[0].title == "Brennwald tunnel drill stops"


def test_the_papers_flow_reads_whole_chunks_where_the_reader_reads_the_best_sentences(engine):
    question = "Who is the site manager of the Brennwald tunnel?"
    read, paper = engine.ask(question, method="hybrid"), engine.ask(question, method="hybrid-paper")
    assert [s.chunk_id for s in read.sources] == [s.chunk_id for s in paper.sources]  # the same ranking (λ = 0.8)
    assert read.trace["retrieval"]["lambda"] == paper.trace["retrieval"]["lambda"] == 0.8
    assert read.trace["reader"]["kind"] == "factoid" and "reader" not in paper.trace
    assert "brass band" in paper.trace["context"] and "brass band" not in read.trace["context"]
    assert read.llm.prompt_tokens < paper.llm.prompt_tokens and read.llm.calls == paper.llm.calls == 1


def test_a_reader_model_writes_the_final_open_answer_and_only_that(engine, models_dir):
    from dataclasses import replace

    from k2desk.engine import shared_llm

    settings = replace(engine.settings, reader_llm="qwen2.5-coder-0.5b")
    with Engine(settings, "news") as other:
        answering, reading = shared_llm(settings), shared_llm(settings, "reader")
        assert answering is not reading and reading.path.name.startswith("qwen2.5-coder-0.5b")
        before = (answering.total.calls, reading.total.calls)
        out = other.ask("Who is the site manager of the Brennwald tunnel?", method="evidence")
        assert out.trace["reader"]["form"] == "open" and out.answer.strip()
        assert (answering.total.calls, reading.total.calls) == (before[0], before[1] + 1)


def test_an_answer_that_says_there_is_none_is_not_an_answer():
    from k2desk.methods.reader import says_nothing

    for text in ("None", "None.", "N/A", "Not mentioned.", "unknown"):
        assert says_nothing(text), text
    for text in ("None of the above methods", "Nonesuch Press", "0", "No", "Henrike Albers"):
        assert not says_nothing(text), text


def test_a_list_none_of_whose_items_the_passages_hold_is_not_in_the_documents(engine):
    from k2desk.methods.forms import ask_form
    from k2desk.methods.reader import Reader
    from k2desk.prompts import NOT_IN_DOCUMENTS
    from tests.methods.support import ScriptedLLM

    retriever = engine.method("evidence").ctx.retriever("text")
    question = "List the names connected to the Brennwald tunnel."
    assert ask_form(question).kind == "list"
    hits = retriever.evidence_search(question, k=10)
    for reply, kept in (("Ilse Damaschke, Piet Olsen", True), ("Ilse Damaschke, Greta Vossberg", True),
                        ("Greta Vossberg and Anton Rieck", False)):
        reader = Reader(ScriptedLLM(lambda prompt, schema, reply=reply: reply), retriever.sparse, outlet_rule=False)
        reading = reader.open(question, hits)
        assert (reading.answer == reply) is kept and (reading.answer == NOT_IN_DOCUMENTS) is not kept, reading.answer
        assert reading.trace["answer_support"]["found_answer"] is kept


def test_no_yes_keeps_an_answer_whose_sentences_hold_little_of_the_question(engine):
    """The model's check cannot keep an answer far from the question's words (support_floor): a
    clear "yes" shows it with a caution at most. ("2023" for how many visitors the 2023 fair
    expects restates the question: its sentence makes it a date, and no check is asked.)"""
    from k2desk.methods.reader import Reader
    from k2desk.prompts import NOT_IN_DOCUMENTS
    from k2desk.types import Answer
    from tests.methods.support import ScriptedLLM

    class Sure(ScriptedLLM):  # says a clear "yes" to every check of its answer
        def first_token_logits(self, messages, words, usage=None, cancel=None):
            return {"yes": 5.0, "no": 0.0}

    retriever = engine.method("evidence").ctx.retriever("text")
    for question, reply, kept in (
            ("What did the residents of the Brennwald valley ask for about the tunnel's opening?", "a brass band", False),
            ("Who is the site manager of the Brennwald tunnel?", "Ilse Damaschke", True)):
        reader = Reader(Sure(lambda prompt, schema, reply=reply: reply), retriever.sparse, outlet_rule=False, verify=True)
        reading = reader.open(question, retriever.evidence_search(question, k=10))
        support = reading.trace["answer_support"]
        answer = Answer(question, "evidence", reading.answer, trace={"reader": reading.trace}, verdict=reading.verdict)
        assert reading.trace["verify"] == 5.0 and reading.answer == reply
        assert (answer.outcome == "answered") is kept, answer.outcome
        assert kept is (support["score"] >= DEFAULTS.support_floor or support["restates"])
    year = "How many visitors does the 2023 fair expect?"
    reader = Reader(Sure(lambda prompt, schema: "2023"), retriever.sparse, outlet_rule=False, verify=True)
    reading = reader.open(year, retriever.evidence_search(year, k=10))
    assert reading.answer == NOT_IN_DOCUMENTS and reading.verdict.reason == "it is a date, and the question asks for an amount"
    assert "verify" not in reading.trace and reading.trace["candidate"] == "2023"


def test_an_answer_the_check_is_unsure_of_is_shown_with_a_caution_when_every_term_stands_beside_it(engine):
    """Support 1.0 (the question's terms all in the answer's sentence) and a lukewarm check: shown,
    with the sentence and a caution; a clear "no" still declines it (``against``), and so does a
    lukewarm check of an answer whose sentence lacks the question's terms."""
    from k2desk.methods.reader import Reader
    from k2desk.prompts import NOT_IN_DOCUMENTS
    from k2desk.types import Answer
    from tests.methods.support import ScriptedLLM

    def unsure(score):
        class Unsure(ScriptedLLM):
            def first_token_logits(self, messages, words, usage=None, cancel=None):
                return {"yes": 0.0, "no": -score}
        return Unsure

    retriever = engine.method("evidence").ctx.retriever("text")
    question = "Who is the site manager of the Brennwald tunnel?"
    hits = retriever.evidence_search(question, k=10)
    for verify, outcome in ((-0.4, "cautioned"), (DEFAULTS.against_min - DEFAULTS.against_weight - 0.5, "declined")):
        llm = unsure(verify)(lambda prompt, schema: "Ilse Damaschke")
        reading = Reader(llm, retriever.sparse, outlet_rule=False, verify=True).open(question, hits)
        answer = Answer(question, "evidence", reading.answer, trace={"reader": reading.trace}, verdict=reading.verdict)
        assert reading.trace["answer_support"]["score"] == 1.0 and answer.outcome == outcome, reading.trace
        if outcome == "cautioned":
            assert reading.answer == "Ilse Damaschke" and "Ilse Damaschke" in answer.caution
            assert answer.to_json()["outcome"] == "cautioned" and answer.to_json()["caution"] == answer.caution
            assert answer.reason == "every term of the question stands beside it, the check is unsure"
        else:
            assert reading.answer == NOT_IN_DOCUMENTS and answer.caution == ""
            assert answer.to_json()["reason"] == answer.reason == "the passages do not say that this is the answer"
    far = "What did the residents of the Brennwald valley ask for about the tunnel's opening?"
    llm = unsure(-0.4)(lambda prompt, schema: "a brass band")
    reading = Reader(llm, retriever.sparse, outlet_rule=False, verify=True).open(far, retriever.evidence_search(far, k=10))
    assert reading.answer == NOT_IN_DOCUMENTS


def test_a_who_answer_naming_only_the_questions_names_is_declined(engine):
    """"Brennwald Tunnel" for "Who is the site manager of the Brennwald tunnel?" names nobody the
    question does not: declined before the check, with the reason."""
    from k2desk.methods.reader import Reader
    from k2desk.prompts import NOT_IN_DOCUMENTS
    from tests.methods.support import ScriptedLLM

    retriever = engine.method("evidence").ctx.retriever("text")
    question = "Who is the site manager of the Brennwald tunnel?"
    reader = Reader(ScriptedLLM(lambda prompt, schema: "The Brennwald Tunnel"), retriever.sparse, outlet_rule=False,
                    verify=True)
    reading = reader.open(question, retriever.evidence_search(question, k=10))
    assert reading.answer == NOT_IN_DOCUMENTS and reading.verdict.reason == "it names only whom the question names"


def test_an_answer_made_only_of_the_questions_words_is_asked_for_again(engine):
    """"The tunnel" for "Which tunnel's drill stopped …?" adds nothing to the question: declined by
    the check, the model answers once more from the same passages, barred from beginning as it did;
    the second answer, checked like the first, is shown when the signals rank it higher. An answer
    with words of its own that the check declines is not asked again."""
    from k2desk.methods.reader import Reader
    from k2desk.prompts import NOT_IN_DOCUMENTS
    from tests.methods.support import ScriptedLLM

    class Picky(ScriptedLLM):  # "yes" to the tunnel's name, and to "Tunnel" (which restates the question)
        def first_token_logits(self, messages, words, usage=None, cancel=None):
            sure = any(f"Proposed answer: {a}\n" in messages[0]["content"] for a in ("Brennwald", "Tunnel"))
            return {"yes": 5.0 if sure else -3.0, "no": 0.0}

    retriever = engine.method("evidence").ctx.retriever("text")
    question = "Which tunnel's drill stopped after water entered the shaft?"
    hits = retriever.evidence_search(question, k=10)
    replies = iter(["The tunnel", "Brennwald"])
    llm = Picky(lambda prompt, schema: next(replies))
    reading = Reader(llm, retriever.sparse, outlet_rule=False, verify=True).open(question, hits)
    assert reading.answer == "Brennwald" and reading.trace["read"] == "again", reading.trace
    assert reading.trace["first"]["candidate"] == "The tunnel" and reading.trace["first"]["answer_support"]["restates"]
    assert reading.trace["again"]["candidate"] == "Brennwald" and reading.trace["again"]["verify"] == 5.0
    assert llm.avoided == ["", "The tunnel"] and llm.calls[0][0] == llm.calls[1][0]  # the same prompt, once more
    # asked again, an answer the signals rank no higher (or that restates too) leaves the first's decline
    def replying(*replies):
        it = iter(replies)
        return Picky(lambda prompt, schema: next(it))

    for second in ("The council", "Tunnel"):
        llm = replying("The tunnel", second)
        reading = Reader(llm, retriever.sparse, outlet_rule=False, verify=True).open(question, hits)
        assert reading.answer == NOT_IN_DOCUMENTS and reading.trace["candidate"] == "The tunnel", reading.trace
        assert reading.trace["again"]["candidate"] == second and "read" not in reading.trace and "first" not in reading.trace
    replies = iter(["The council", "Brennwald"])  # words of its own ("council"), declined: not asked again
    llm = Picky(lambda prompt, schema: next(replies))
    reading = Reader(llm, retriever.sparse, outlet_rule=False, verify=True).open(question, hits)
    assert reading.answer == NOT_IN_DOCUMENTS and llm.avoided == [""] and "again" not in reading.trace


def test_a_number_the_question_names_must_stand_beside_the_answer(engine):
    """The tunnel overrun (4 million euros) is in a May 2023 article: asked about 2021, the words'
    support misses the year, and the answer is not kept whatever the model says."""
    from k2desk.methods.support import answer_support

    retriever = engine.method("evidence").ctx.retriever("text")
    for question, missing in (("How big was the Brennwald tunnel budget overrun in 2021?", ["2021"]),
                              ("How big was the Brennwald tunnel budget overrun in 2023?", [])):
        s = answer_support(question, "4 million euros", retriever.evidence_search(question, k=10), retriever.sparse)
        assert s.found_answer and s.missing_values == missing, s


def test_the_sentence_shown_with_a_caution():
    from k2desk.methods.reader import evidence_sentence

    context = "Board minutes. The fire warden is Ilse Marquardt. Nothing else.\nWood: Walnut · Stock: 6.5\nEnd"
    assert evidence_sentence(context, "Ilse Marquardt") == "The fire warden is Ilse Marquardt."
    assert evidence_sentence(context, "6.5") == "Wood: Walnut · Stock: 6.5"
    assert evidence_sentence(context, "Oak") == ""

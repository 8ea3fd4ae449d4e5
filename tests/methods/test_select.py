"""Sentence-level evidence: the question's best sentences, under their article's line, in budget."""

from k2desk.methods.select import select_evidence


def _words(text: str) -> int:
    return len(text.split())


def test_the_best_sentences_of_each_passage_within_the_budget(world):
    retriever = world.method("evidence").ctx.retriever("text")
    question = "Who made the new lens of the Harwick Point lighthouse, and who leads the company that acquired it?"
    hits = retriever.evidence_search(question, k=10)
    assert len({h.chunk.document_id for h in hits}) == 2
    blocks = select_evidence(question, hits, retriever.sparse, _words, budget=40)
    text = "\n".join(blocks)
    assert "made by Orrin Glassworks" in text  # harbour.txt's best sentence
    assert "acquired Orrin Glassworks" in text  # robots.txt's best sentence
    assert "Tobias Varga" not in text and "Tampere" not in text  # sentences without the question's terms
    assert sum(_words(b) for b in blocks) <= 40 + 2 * len(blocks)
    assert all(b.splitlines()[0] in {"harbour", "robots"} for b in blocks)  # each under its document's line

    roomy = "\n".join(select_evidence(question, hits, retriever.sparse, _words, budget=1000))
    # "Its chief executive is Anneli Korhonen." shares no term with the question; it is taken
    # when there is room, as the neighbour of the sentence that matches
    assert "Its chief executive is Anneli Korhonen. In 2023 Quillfeather Robotics acquired" in roomy


def test_no_passages_no_blocks(world):
    sparse = world.method("evidence").ctx.retriever("text").sparse
    assert select_evidence("anything", [], sparse, _words, budget=100) == []

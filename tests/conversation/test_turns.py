"""Earlier turns as plain data: an OpenAI-style messages list reads as the turns a stored thread gives."""

import pytest

from k2desk.conversation import Turn, turns_from_history, turns_from_messages
from k2desk.errors import UsageError
from k2desk.store.history import HistoryEntry


def test_messages_make_turns_and_the_last_question():
    turns, last = turns_from_messages([
        {"role": "system", "content": "You answer from my documents."},
        {"role": "user", "content": "Who leads the Lindenfeld Solar Cooperative?"},
        {"role": "assistant", "content": "Henrike Albers"},
        {"role": "user", "content": [{"type": "text", "text": "Thanks."}, {"type": "image_url", "image_url": {}}]},
        {"role": "user", "content": "And who is its treasurer?"},
    ])
    assert turns == [Turn("Who leads the Lindenfeld Solar Cooperative?", answer="Henrike Albers"), Turn("Thanks.")]
    assert last == "And who is its treasurer?"


@pytest.mark.parametrize("messages", [[], [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
                                      [{"role": "system", "content": "x"}]])
def test_a_conversation_must_end_with_a_question(messages):
    with pytest.raises(UsageError, match="must be the person's"):
        turns_from_messages(messages)


def test_history_rows_make_the_same_turns():
    rows = [HistoryEntry(1, 0.0, "Who leads the Lindenfeld Solar Cooperative?", "k2rag", "Henrike Albers",
                         [{"document": "/d/solar.md", "title": "Solar"}, {"document": "/d/ferry.txt", "title": ""},
                          {"document": "/d/solar.md", "title": "Solar"}], thread_id=3),
            HistoryEntry(2, 1.0, "Who is the treasurer of the Lindenfeld Solar Cooperative?", "k2rag", "Jonas Petrowski",
                         [], thread_id=3, message="And who is its treasurer?")]
    turns = turns_from_history(rows)
    assert turns[0] == Turn("Who leads the Lindenfeld Solar Cooperative?", "Who leads the Lindenfeld Solar Cooperative?",
                            "Henrike Albers", ("Solar", "/d/ferry.txt"), ("/d/solar.md", "/d/ferry.txt"),
                            (("/d/solar.md", "Solar"), ("/d/ferry.txt", ""), ("/d/solar.md", "Solar")))  # as listed: [1], [2], [3]
    assert turns[1].message == "And who is its treasurer?" and turns[1].question.startswith("Who is the treasurer")

"""The official `openai` client against a real `k2desk serve` (the command, in its own process)
on the README's sample with the default models (issue 57's acceptance): the collection is a model,
the README's question is answered with its source whole and streamed, a follow-up is answered
from the conversation the request carries, retrieval alone returns the passage, and the token is
carried as the client's API key."""

import re
from pathlib import Path

import openai
import pytest

from k2desk.eval.metrics import strict_match
from tests.serve.servers import serve_command

QUESTION = "Who leads the Lindenfeld Solar Cooperative?"
TOKEN = "token-for-the-test"


@pytest.fixture(scope="module")
def client(sample_home, models_dir):
    env = {"K2DESK_HOME": str(sample_home), "K2DESK_MODELS": str(models_dir), "PATH": "/usr/bin:/bin",
           "K2DESK_SERVE_TOKEN": TOKEN}
    with serve_command(env) as lines:
        url = re.search(r"(http://127\.0\.0\.1:\d+/v1)", lines).group(1)
        yield openai.OpenAI(base_url=url, api_key=TOKEN, timeout=600, max_retries=0)


def documents(sources) -> list[str]:
    return [Path(s["document"]).name for s in sources]


@pytest.mark.slow
def test_the_collection_is_a_model(client):
    assert "sample" in [m.id for m in client.models.list()]


@pytest.mark.slow
def test_a_question_is_answered_with_its_sources(client):
    reply = client.chat.completions.create(model="sample", messages=[{"role": "user", "content": QUESTION}])
    text = reply.choices[0].message.content
    assert strict_match(text.split("\n\n")[0], "Henrike Albers") and "Sources:" in text
    assert "solar-cooperative.md" in documents(reply.sources) and reply.k2desk["outcome"] == "answered"


@pytest.mark.slow
def test_a_streamed_answer_carries_its_sources_in_the_last_chunk(client):
    chunks = list(client.chat.completions.create(model="sample", stream=True,
                                                 messages=[{"role": "user", "content": QUESTION}]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert strict_match(text.split("\n\n")[0], "Henrike Albers")
    assert "solar-cooperative.md" in documents(chunks[-1].sources)
    assert not any(getattr(c, "sources", None) for c in chunks[:-1])


@pytest.mark.slow
def test_a_two_message_conversation_answers_its_follow_up(client):
    first = client.chat.completions.create(model="sample", messages=[{"role": "user", "content": QUESTION}])
    reply = client.chat.completions.create(model="sample", messages=[
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "And who is its treasurer?"}])
    assert strict_match(reply.choices[0].message.content.split("\n\n")[0], "Jonas Petrowski")
    assert "Solar Cooperative" in reply.k2desk["understood_as"]


@pytest.mark.slow
def test_retrieval_alone_returns_the_passage(client):
    found = client.post("/search", cast_to=object, body={"model": "sample", "query": "treasurer of the cooperative",
                                                         "top_k": 3})
    top = found["data"][0]
    assert Path(top["document"]).name == "solar-cooperative.md" and "Jonas Petrowski" in top["text"]


def test_a_wrong_token_is_an_authentication_error(client):
    wrong = openai.OpenAI(base_url=str(client.base_url), api_key="not-the-token", max_retries=0)
    with pytest.raises(openai.AuthenticationError):
        wrong.models.list()

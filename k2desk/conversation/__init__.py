"""Conversations: a message read against the turns before it and made the standalone question that
an unchanged method answers. The turns are plain data (``Turn``), so a thread the app stored and a
stateless request carrying its own history (an OpenAI-style ``messages`` list) are read the same way."""

from k2desk.conversation.turns import Turn, turns_from_history, turns_from_messages
from k2desk.conversation.understand import Understanding, read_ahead, understand

__all__ = ["Turn", "Understanding", "read_ahead", "turns_from_history", "turns_from_messages", "understand"]

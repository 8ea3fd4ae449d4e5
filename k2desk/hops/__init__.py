"""Bridge questions answered hop by hop (issue 55): the description found in the question's
grammar (find.py), each hop asked with the unchanged method and its answer put in its place
(chain.py)."""

from k2desk.hops.chain import answer_by_hops, answer_once_then_hops
from k2desk.hops.find import Bridge, find_bridge

__all__ = ["Bridge", "answer_by_hops", "answer_once_then_hops", "find_bridge"]

"""What a question asks for, in a person's words, read without a model.

``ask_form(question)`` returns a ``Form``:

* ``kind`` — what the answer must be:
  - "summary": a summary of a document, of several, or of the whole collection ("Summarize the
    ferry document.", "What is the observatory page about?", "main points of …", "What is in
    this collection?");
  - "yes_no": a true polar question ("Did the ferry start running while the observatory was
    being built?", "Can the ferry carry trucks?");
  - "explain": how or why, a description ("Why did the town replace the engine?", "Describe …");
  - "list": several items ("List …", "What datasets do they use?", "Which arrays …?");
  - "compare": a comparison that is not yes/no ("Compare A and B", "How does A differ from B?",
    "Which is older, A or B?", "…, or are they aligned?");
  - "multi": several questions in one ("How long is the crossing and who runs the ferry?"):
    ``parts`` holds each, with its own form;
  - "factoid": a name, date, number, place or short phrase (everything else).
* ``text`` — the question itself, without a request's wrapper: "Can you tell me who leads the
  cooperative?" asks "Who leads the cooperative?" (a request is never answered "Yes.").
* ``target`` — for a summary, the words naming what is to be summarized ("the solar cooperative
  document"; "" for the collection as a whole, ``whole`` then True).
* ``sides`` — for a comparison that names what it compares, each of them ("Which is older, the
  ferry service or the observatory?" → "the ferry service", "the observatory"): the passages must
  hold a fact on each side, not the comparative word ("older", "came first", "founded earlier").

The rules are the question's own grammar (its first words, its joins), not one benchmark's
templates; tests/methods/data/question_forms.jsonl holds the questions they are measured on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

AUX = r"(?:does|did|do|is|was|were|are|am|has|have|had|can|could|would|will|should|shall|may|might|must)"
NEG_AUX = r"(?:doesn't|didn't|don't|isn't|wasn't|weren't|aren't|hasn't|haven't|hadn't|can't|couldn't|won't|wouldn't|shouldn't)"
WH = r"(?:who|whom|whose|which|what|what's|whats|where|when|why|how)"
_REQUEST_VERBS = (r"(?:tell|give|show|explain|describe|summari[sz]e|sum\s+up|list|name|compare|contrast|find|help|"
                  r"provide|outline|say|let|check|clarify|recap|remind|walk|break\s+down|identify|enumerate|write|"
                  r"point|share|look\s+up|lay\s+out|go\s+over|elaborate|detail|state|confirm)")

# A request's wrapper, peeled off one layer at a time ("Could you please tell me …").
_WRAPPERS = [
    re.compile(r"^(?:hi|hello|hey|ok|okay|so|quick question|one more thing)\b[,:!.]?\s+", re.I),
    re.compile(r"^(?:please|pls|kindly)\b[,]?\s+", re.I),
    re.compile(rf"^(?:can|could|would|will|won't)\s+(?:you|u)\s+(?:please\s+|kindly\s+|quickly\s+|briefly\s+)?"
               rf"(?={_REQUEST_VERBS}\b)", re.I),
    re.compile(r"^(?:do|does|would)\s+(?:you|anyone)\s+(?:happen\s+to\s+)?know\s+", re.I),
    re.compile(r"^(?:i'?d|i\s+would)\s+(?:like|love)\s+to\s+(?:know|find\s+out|understand|learn)\s+", re.I),
    re.compile(r"^(?:i'?d|i\s+would)\s+like\s+(?:you\s+to\s+)?(?=(?:a|an|the|some)\s)", re.I),
    re.compile(r"^(?:i'?d|i\s+would)\s+like\s+you\s+to\s+", re.I),
    re.compile(r"^i\s+(?:want|need|wish|would\s+like)\s+to\s+(?:know|find\s+out|understand|learn)\s+", re.I),
    re.compile(r"^i\s+(?:want|need)\s+(?=(?:a|an|the|some)\s)", re.I),
    re.compile(r"^i(?:'m|\s+am)?\s+(?:wonder(?:ing)?|curious(?:\s+about)?)\s+", re.I),
    re.compile(r"^(?:tell|show)\s+me\s+(?=(?:" + WH + r"|if|whether)\b)", re.I),
    re.compile(r"^(?:let\s+me\s+know|find\s+out|check)\s+(?=(?:" + WH + r"|if|whether)\b)", re.I),
    re.compile(r"^(?:any\s+idea|do\s+you\s+have\s+any\s+idea)\s+", re.I),
]
_IF_WHETHER = re.compile(r"^(?:if|whether)\s+", re.I)

# Summaries: what a person types to have a document (or all of them) summed up.
_DOCISH = (r"(?:document|documents|doc|docs|page|pages|paper|papers|article|articles|file|files|report|reports|"
           r"text|texts|collection|folder|corpus|pdf|story|post|piece|essay|note|notes|memo|chapter|book|"
           r"study|work|it|this|that|these|those|everything)")
# How a summary request begins ("Summarize …", "Give me a short overview of …", "tl;dr …"), and
# what a document's main points are called; both name the request and mark where its target starts.
_SUMMARY_NOUN = r"(?:summary|overview|rundown|recap|gist|synopsis|digest)"
_SUMMARY_LEAD = (rf"(?:summari[sz]e|sum\s+up|recap|tl;?dr|tldr|gist|outline|synopsis|overview|summary|brief\s+me(?:\s+on)?|"
                 rf"break\s+down|walk\s+me\s+through|give\s+(?:me\s+)?(?:a|an|the)\s+(?:\w+\s+)?"
                 rf"(?:{_SUMMARY_NOUN[3:-1]}|outline|abstract|breakdown)|(?:a|an|the)\s+(?:\w+\s+)?{_SUMMARY_NOUN})")
_POINTS = (r"(?:points?|ideas?|findings?|takeaways?|messages?|topics?|themes?|contributions?|arguments?|claims?|facts?|"
           r"results?|conclusions?)")
_SUMMARY = [
    re.compile(rf"^{_SUMMARY_LEAD}\b", re.I),
    re.compile(rf"^what(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:(?:the|this|that|these|those|my|our|your)\s+)?(?:[\w'’\-]+\s+){{0,6}}?"
               rf"{_DOCISH}\s+(?:(?:\w+\s+){{0,2}})?(?:all\s+)?about\b", re.I),
    re.compile(r"^what(?:'s|\s+is|\s+are)\s+(?:all\s+)?(?:this|that|these|it)\s+about\b", re.I),
    re.compile(rf"\b(?:main|key|central|important|major)\s+{_POINTS}\b", re.I),
    re.compile(r"^what(?:'s|\s+is|\s+are)\s+(?:in|inside)\s+(?:this|the|these|my|our)\b", re.I),
    re.compile(r"^what\b.*\b(?:is|are)\s+(?:in|inside)\s+(?:this|these|the|my|our)\s+(?:collection|corpus|folder|documents|docs|"
               r"files|papers|articles|pages|texts)\b", re.I),
    re.compile(rf"^what\s+(?:do|does|did)\s+(?:the|this|that|these|those|my|our)\s+(?:[\w'’\-]+\s+){{0,5}}?{_DOCISH}\s+"
               r"(?:say|cover|contain|discuss|talk\s+about|describe|tell\s+(?:me|us))\s*[?.!]*\s*$", re.I),
    re.compile(r"^what\s+(?:documents|files|papers|articles|pages)\s+(?:do\s+i\s+have|are\s+(?:here|there|in))\b", re.I),
    re.compile(rf"^(?:tell|teach)\s+me\s+about\s+(?:the\s+|this\s+|that\s+|these\s+|my\s+)?(?:[\w'’\-]+\s+){{0,5}}?{_DOCISH}\b"
               r"\s*[?.!]*\s*$", re.I),
]
_WHOLE = re.compile(r"\b(?:this|the|my|our|these|all|whole|entire)\s+(?:(?:whole|entire)\s+)?"
                    r"(?:collection|corpus|folder|documents|docs|files|papers|articles|pages|texts)\b|^(?:what(?:'s|\s+is|\s+are)\s+"
                    r"(?:all\s+)?(?:this|these)\b)|\beverything\b", re.I)

_EXPLAIN = re.compile(r"^(?:why|how\s+come|explain|describe|elaborate|detail|in\s+what\s+way|"
                      r"what\s+(?:caused|causes|led\s+to|leads\s+to|happened|happens|made|makes|drives|explains)\b|"
                      r"what\s+(?:is|was|are|were)\s+the\s+(?:definition|meaning)\s+of\b|"
                      r"what\s+(?:does|do|did)\s+(?:[\w'’\"\-]+\s+){1,6}?(?:mean|denote|refer\s+to|consist\s+of|stand\s+for|represent)\b|"
                      r"what\s+(?:is|was|are|were)\s+the\s+(?:reasons?|causes?|purpose|role|motivation|rationale|impact|"
                      r"effects?|consequences?|significance|idea|intuition|process|procedure|mechanism|approach)\b|"
                      r"tell\s+me\s+about|what(?:'s|\s+is|\s+was)\s+the\s+(?:link|connection|relationship|relation)\s+between|what\s+(?:do|does|did)\s+(?:\w+\s+){{1,6}}(?:say|think|write|report|argue)\s+about|"
                      r"how\s+(?:does|do|did|is|are|was|were|can|could|would|will|has|have|should)\b)", re.I)
# A plural noun ("datasets", "arrays"), not a verb or pronoun that ends in s ("does", "this")
_PLURAL = (r"(?!(?:does|was|has|is|this|its|his|hers|yours|ours|theirs|less|us|yes|always|perhaps|sometimes|news|series|"
           r"species|physics|mathematics|economics|politics|whereas|unless|across|plus|thus)\b)\w+s\b(?<!ss)(?<!us)(?<!'s)")
# A word before the noun a "what …s" question asks for ("what data simulation techniques"), not a
# preposition, verb or determiner ("what percentage of homes", "what were their results")
_MODIFIER = (r"(?!(?:of|in|on|at|for|to|by|from|with|about|do|does|did|is|are|was|were|has|have|had|the|their|its|his|her|"
             r"this|that|these|those|a|an|can|could|will|would|should)\b)[\w\-]+")
_LIST = re.compile(rf"^(?:list|enumerate|name\s+(?:all|the|every|some|each|\d+|two|three|four|five|any)|"
                   rf"give\s+(?:me\s+)?(?:a\s+)?list|what\s+are\s+(?:all\s+)?(?:the\s+)?(?!most\b|least\b|best\b)(?:\w+\s+){{0,3}}?{_PLURAL}"
                   rf"(?!\s+about)|which\s+(?:\w+\s+){{0,2}}?{_PLURAL}\s+(?:do|does|did|are|were|have|has|had|can|could|will|would|"
                   rf"is|was|\w+ed\b|appear|mention|exist|use|run|take)|what\s+(?:{_MODIFIER}\s+){{0,3}}?{_PLURAL}\s+(?!of\b|and\b|or\b|is\b|was\b)\w+|"
                   rf"(?:what|which)\s+(?:kinds|types|sorts)\s+of\b|"
                   rf"who\s+are\s+(?:all\s+)?(?:the\s+)?(?:\w+\s+)?(?:people|persons|members|authors|"
                   rf"players|actors|characters|speakers|participants|founders|winners)|who\s+(?:else\s+)?(?:are|were)\s+(?!the\s+\w+(?<!s)\b))",
                   re.I)
_LIST_ANYWHERE = re.compile(r"\b(?:list\s+(?:of|all)|all\s+the\s+\w+s\s+(?:that|which|who|mentioned|named))\b", re.I)
_COMPARE = re.compile(r"^(?:compare|contrast)\b|\bdiffer(?:s|ed|ence|ences)?\s+(?:between|from)\b|\bdifferent\s+from\b|"
                      r"\bin\s+common\b|\bsimilarit(?:y|ies)\b|\bvs\.?\s|\bversus\b|"
                      r"\bhow\s+(?:do|does|did)\s+.+\s+(?:differ|compare)\b|^which\s+(?:is|was|are|were|has|had|one)\b.*\bor\b|"
                      r"^(?:who|which|what)\b[^?]*[,:]\s*(?:the\s+)?[^,:?]+\s+or\s+(?:the\s+)?[^,:?]+\??\s*$", re.I)
# A polar question that offers its own alternatives: "…, or are they aligned?", "consistent or
# inconsistent", "the same or different", a short "Is it A or B?".
_ALTERNATIVES = re.compile(rf",\s*or\s+(?:{AUX}\s+)(?:they|both|these|those|it|the\s+two|there)\b|"
                           r"\b(\w+)\s+or\s+(?:in|un|im|dis|non-?)\1\b|"
                           r"\b(?:same|similar|different|consistent|aligned|agree|better|worse|more|less|older|newer|bigger|"
                           r"smaller|larger|higher|lower|earlier|later)\s+or\s+", re.I)
SHORT_CHOICE = 14  # words: "Is the ferry run by the town or by the cooperative?" offers a choice
_NOT_ALTERNATIVE = re.compile(r"\bor\s+not\b|\beither\b|\bwhether\b|\band/or\b", re.I)

_POLAR = re.compile(rf"^(?:{AUX}|{NEG_AUX})\b", re.I)
# "Between the report on … and the report on …, was there a change …?" (a lead clause, then polar)
_LEAD_POLAR = re.compile(rf",\s*{AUX}\s+(?:there|the|it|they|this|that|[A-Z'\"‘“]|\w+\s)", re.I)
_WH_START = re.compile(rf"^(?:{WH})\b", re.I)
# A second question joined by "and": "… and who keeps it?", "… and is it still running?"
_AND_WH = re.compile(rf"(?:,\s*|\s+)(?:and|plus|&)\s+(?:also\s+)?"
                     rf"(?=(?:since\s+|until\s+|from\s+)?(?:{WH})\b(?!\s+(?:many|much)\s+of\b))", re.I)
_AND_POLAR = re.compile(rf"(?:,\s*|\s+)and\s+(?=(?:{AUX}|{NEG_AUX})\s+(?:there|it|they|he|she|this|that|you|i|we)\b)", re.I)
_COMMA_WH = re.compile(rf",\s+(?=(?:where|when|what|how|why)\s+{AUX}\b)", re.I)  # "Where is it, when did it open?"
_RELATIVE = re.compile(r"\w[\s,]+(?:who|whose|which|that)\b", re.I)  # "the person who …", "…, which …"


@dataclass
class Form:
    kind: str
    text: str
    target: str = ""
    whole: bool = False
    parts: list["Form"] = field(default_factory=list)
    request: bool = False  # the question came wrapped in a request ("Can you tell me …")
    sides: list[str] = field(default_factory=list)  # what a comparison compares (``compared``)

    @property
    def answer_form(self) -> str:
        """The reader's two ways of answering: "yes_no" or "open"."""
        return "yes_no" if self.kind == "yes_no" else "open"

    def to_trace(self) -> dict:
        out: dict = {"kind": self.kind, "text": self.text}
        if self.request:
            out["request"] = True
        if self.kind == "summary":
            out["target"] = self.target
            out["whole"] = self.whole
        if self.parts:
            out["parts"] = [p.to_trace() for p in self.parts]
        if self.sides:
            out["sides"] = self.sides
        return out


# What a short answer must be, where the question's first words say it (the reader's factoid prompt
# names it): who plays / voices / portrays someone asks for the performer, not the part ("who plays the
# mom" -> the actor, not "Linda"); when asks for the date as precisely as the text gives it (a
# year alone misses "April 25, 2018"), what year for the year; how many / how much asks for the
# number. Other questions
# keep the prompt's own "the name or short phrase".
DATE_KIND = "the date, as precisely as the information gives it (day, month and year)"
NUMBER_KIND = "the number, with what it counts"
ANSWER_KINDS = (
    (re.compile(r"^(?:who|whom)\s+(?:(?:does|did|do|is|was|will|has|had)\s+)?(?:plays?|played|playing|voices?|voiced|"
                r"portrays?|portrayed|stars?|starred|sings?|sang|performs?|performed)\b|"
                r"^who\s+(?:does|did|do|is|was)\s+(?:the\s+)?voice\s+of\b|^who\s+(?:is|was)\s+\S+\s+voice\b", re.I),
     "the name of the actor or performer (not of the character)"),
    (re.compile(r"^(?:in\s+)?(?:what|which)\s+year\b", re.I), "the year"),
    (re.compile(r"^when\b|^(?:on\s+)?(?:what|which)\s+(?:date|day)\b", re.I), DATE_KIND),
    (re.compile(r"^how\s+(?:many|much)\b|^(?:what|which)\s+(?:is\s+the\s+)?(?:number|amount|count)\s+of\b", re.I),
     NUMBER_KIND),
)
DEFAULT_ANSWER_KIND = "the name or short phrase"


def answer_kind(question: str) -> str:
    """What a short answer to ``question`` must be (ANSWER_KINDS), else DEFAULT_ANSWER_KIND."""
    text = unwrap(question)[0]
    for pattern, kind in ANSWER_KINDS:
        if pattern.search(text):
            return kind
    return DEFAULT_ANSWER_KIND


def unwrap(question: str) -> tuple[str, bool]:
    """The question without a request's wrapper, and whether there was one."""
    q = " ".join(question.strip().split())
    wrapped = False
    changed = True
    while changed and q:
        changed = False
        for pattern in _WRAPPERS:
            m = pattern.match(q)
            if m and m.end() < len(q):
                q, changed, wrapped = q[m.end():].lstrip(" ,:"), True, True
    return q, wrapped


def ask_form(question: str) -> Form:
    """What ``question`` asks for (see the module docstring)."""
    text, wrapped = unwrap(question)
    polar_inner = False
    m = _IF_WHETHER.match(text)
    if m and wrapped:  # "Do you know if the ferry runs in winter?"
        text, polar_inner = text[m.end():], True
    form = _classify(text, polar_inner)
    form.request = wrapped
    if wrapped or polar_inner:
        form.text = _as_question(form.text, form.kind)
    return form


def _classify(text: str, polar: bool) -> Form:
    parts = [] if polar else _split_parts(text)
    if len(parts) > 1:
        return Form("multi", text, parts=[_classify(p, False) for p in parts])
    if _is_summary(text):
        target, whole = summary_target(text)
        return Form("summary", text, target=target, whole=whole)
    if polar:
        return _compare(text) if _offers_alternatives(text) else Form("yes_no", text)
    lead = _LEAD_POLAR.search(text)
    if _POLAR.match(text) or (lead and not _WH_START.match(text) and not re.match(r"^(?:compare|contrast)\b", text, re.I)
                              and not _asks_which_after_lead(text, lead.start())):
        return _compare(text) if _offers_alternatives(text) else Form("yes_no", text)
    if _COMPARE.search(text):
        return _compare(text)
    if _EXPLAIN.match(text):
        return Form("explain", text)
    if _LIST.match(text) or _LIST_ANYWHERE.search(text):
        return Form("list", text)
    return Form("factoid", text)


_LEAD_WHICH = re.compile(r",\s*(?:which|what|whose)\s+\w", re.I)


def _asks_which_after_lead(text: str, verb_at: int) -> bool:
    """Whether the question after a lead clause asks which one ("Considering the two reports, which
    city, beginning with 'S', is both …?"), not yes or no: before the verb at ``verb_at``, a comma
    and a "which" / "what" / "whose" that is a determiner of a noun (spaCy's parse), not a relative
    clause's subject ("…, which appeared in May, was there a change …?")."""
    if not _LEAD_WHICH.search(text, 0, verb_at):
        return False
    from k2desk.graph.nlp import load_pipeline

    doc = load_pipeline()(text)
    return any(t.lower_ in ("which", "what", "whose") and t.i > 0 and doc[t.i - 1].text == "," and t.dep_ == "det"
               and t.idx < verb_at for t in doc)


# Where a comparison names what it compares: its last clause ("…, A or B?", "…: A or B?"), "between
# A and B", "Compare A and/with/to B", "How does A differ from / compare with B?"
_SIDES = (
    re.compile(r"[,:;]\s*(?:or\s+)?(?:is\s+it\s+|was\s+it\s+)?(?P<a>[^,:;?]+?)\s+or\s+(?P<b>[^,:;?]+?)\s*\??\s*$", re.I),
    re.compile(r"\bbetween\s+(?P<a>[^,;?]+?)\s+and\s+(?P<b>[^,;?]+?)\s*(?:[,;?]|$)", re.I),
    re.compile(r"^(?:compare|contrast)\s+(?P<a>[^,;?]+?)\s+(?:and|with|to|against)\s+(?P<b>[^,;?]+?)\s*(?:[.,;?]|$)", re.I),
    re.compile(r"^how\s+(?:do|does|did)\s+(?P<a>.+?)\s+(?:differ\s+from|compare\s+(?:with|to))\s+(?P<b>[^,;?]+?)\s*(?:[.,;?]|$)",
               re.I),
)


def _compare(text: str) -> Form:
    return Form("compare", text, sides=compared(text))


def compared(text: str) -> list[str]:
    """What a comparison compares, when it names both (``Form.sides``), else []."""
    for pattern in _SIDES:
        m = pattern.search(text)
        if m and all(re.search(r"\w", m.group(k)) for k in "ab"):
            return [" ".join(m.group(k).split()) for k in "ab"]
    return []


def _offers_alternatives(text: str) -> bool:
    if _NOT_ALTERNATIVE.search(text):
        return False
    return bool(_ALTERNATIVES.search(text)) or (" or " in text.lower() and len(text.split()) <= SHORT_CHOICE)


def _is_summary(text: str) -> bool:
    return any(p.search(text) for p in _SUMMARY)


def _split_parts(text: str) -> list[str]:
    """The separate questions in ``text`` (one when it asks one thing)."""
    sentences = [s.strip() for s in re.split(r"(?<=\?)\s+(?=\S)", text.strip()) if s.strip()]
    if len(sentences) > 1 and all(len(s.split()) >= 3 and (s.endswith("?") or _WH_START.match(s) or _POLAR.match(s))
                                  for s in sentences):
        return [p for s in sentences for p in _split_parts(s)]
    first_polar = bool(_POLAR.match(text))
    cuts = []
    for m in _AND_WH.finditer(text):
        wh, rest = (text[m.end():].split(None, 2) + ["", ""])[:2]
        wh = wh.lower()
        before = text[: m.start()]
        # "… the person who founded X, and who also …", "… and whose trial …": a relative clause goes on
        if wh == "whose" or rest.lower() == "also" or (
                wh in ("who", "which", "where", "when") and _RELATIVE.search(before)):
            continue
        cuts.append((m.start(), m.end()))
    if _WH_START.match(text):
        cuts += [(m.start(), m.end()) for m in _COMMA_WH.finditer(text)]
    if not first_polar:  # a polar question joined to a polar one is one question of several claims
        cuts += [(m.start(), m.end()) for m in _AND_POLAR.finditer(text)]
    if not cuts:
        return [text]
    parts, last = [], 0
    for start, end in sorted(cuts):
        parts.append(text[last:start])
        last = end
    parts.append(text[last:])
    parts = [p.strip(" ,;") for p in parts]
    if any(len(p.split()) < 2 for p in parts):
        return [text]
    return [_as_question(p, "") for p in parts]


def _as_question(text: str, kind: str) -> str:
    """``text`` as a question of its own: a capital first letter, a question mark where one belongs."""
    t = text.strip()
    if not t:
        return t
    t = t[0].upper() + t[1:]
    if kind not in ("summary", "list", "compare", "explain") or _WH_START.match(t) or _POLAR.match(t):
        t = t.rstrip(" .!")
        if not t.endswith("?"):
            t += "?"
    return t


_TARGET_LEAD = re.compile(rf"^{_SUMMARY_LEAD}\s*(?:of|on|for|about|:)?\s*", re.I)
_TARGET_POINTS = re.compile(rf"\b{_POINTS}\s+(?:of|in|from|made\s+in|made\s+by)\s+", re.I)
_TARGET_ABOUT = re.compile(r"^what(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(.+?)\s+(?:all\s+)?about\b", re.I)
_TARGET_SAY = re.compile(r"^what\s+(?:do|does|did)\s+(.+?)\s+(?:say|cover|contain|discuss|talk\s+about|describe|tell)\b", re.I)
_TARGET_TELL = re.compile(r"^(?:tell|teach)\s+me\s+about\s+(.+)$", re.I)


def summary_target(text: str) -> tuple[str, bool]:
    """What a summary request names, and whether that is the whole collection."""
    target = ""
    for pattern in (_TARGET_ABOUT, _TARGET_SAY, _TARGET_TELL):
        m = pattern.match(text)
        if m:
            target = m.group(1)
            break
    else:
        m = _TARGET_POINTS.search(text)
        if m:
            target = text[m.end():]
        else:
            m = _TARGET_LEAD.match(text)
            target = text[m.end():] if m else ""
    target = re.sub(r"\s+(?:for\s+me|please|in\s+(?:a\s+few|\d+|one|two|three)\s+\w+|briefly)\b.*$", "", target, flags=re.I)
    target = target.strip(" ?.!:;,'\"")
    whole = not target or bool(_WHOLE.search(target)) or target.lower() in ("it", "this", "all", "them")
    return ("" if whole else target), whole

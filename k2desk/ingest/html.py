"""HTML to text (also used for Markdown, EPUB and corpus records written in HTML): the page's
title, and its text with blocks as paragraphs, rows and list items as lines, cells separated by
" | "; scripts, styles, navigation and the page's back matter left out."""

from __future__ import annotations

import re

from k2desk.ingest.document import normalize_text

_PARA, _LINE, _CELL, _BR = "\ue000", "\ue001", "\ue002", "\ue003"  # private-use markers
_DROP = {"head", "script", "style", "noscript", "template", "nav", "svg", "iframe", "object",
         "canvas", "select", "button", "-comment"}
_BLOCK = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "dl", "table", "section",
          "article", "header", "footer", "main", "aside", "blockquote", "figure", "address",
          "hr", "form", "fieldset", "details", "body", "html"}
_LINE_TAGS = {"li", "tr", "dt", "dd", "caption", "figcaption", "summary", "legend", "thead",
              "tbody", "tfoot"}
_HTML_WS = re.compile(r"[ \t\n\r\f]+")
_MARKERS = re.compile("[\ue000-\ue003]")
_BREAK_RUN = re.compile("[ \ue000\ue001\ue003]*[\ue000\ue001\ue003][ \ue000\ue001\ue003]*")

_SELF_CLOSED = re.compile(r"<(title|script|style|textarea|iframe)(\s[^<>]*)?/>", re.I)
# A page's back matter: the list of its sources and links, not what it says. Such a section (its
# heading one of these, an "edit" link aside) is left out up to the next heading of its level or
# above; on a Wikipedia page it is a third of the text, and its citation titles repeat the topic's
# words, so they outrank the sentences that hold the facts (docs/eval/retrieval-long/).
BACK_MATTER = {"references", "external links", "further reading", "bibliography", "citations", "works cited",
               "sources", "footnotes", "literature cited"}
_HEADING = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_EDIT_LINK = re.compile(r"[(\[]\s*edit\s*[)\]]", re.I)


def _back_matter(heading: str) -> bool:
    return " ".join(_EDIT_LINK.sub(" ", heading).split()).strip(" :").lower() in BACK_MATTER


def _resolve_breaks(m: re.Match) -> str:
    """A run of break markers and spaces -> one newline, or a blank line for a block or <br><br>."""
    run = m.group()
    return "\n\n" if _PARA in run or run.count(_BR) > 1 else "\n"


def html_to_text(html: str) -> tuple[str, str]:
    """(title, text) of an HTML page: script/style/nav/head dropped, blocks -> line breaks."""
    from selectolax.lexbor import LexborHTMLParser

    html = _SELF_CLOSED.sub(r"<\1\2></\1>", _MARKERS.sub("", html))  # XHTML <title/> etc.
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("head > title") or tree.css_first("title")
    title = _HTML_WS.sub(" ", title_node.text()).strip() if title_node else ""
    parts: list[str] = []
    stack: list = [tree.body or tree.root]
    skipping = 0  # the level of the back-matter heading being skipped (0: none)
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
            continue
        tag = node.tag
        level = _HEADING.get(tag, 0)
        if skipping and not (level and level <= skipping):
            if tag not in _HEADING and tag not in ("-text",) and not tag.startswith("-"):
                stack.extend(reversed(list(node.iter(include_text=False))))  # a heading may lie inside
            continue
        if level:
            skipping = level if _back_matter(node.text(deep=True) or "") else 0
            if skipping:
                continue
        if tag == "-text":
            parts.append(_HTML_WS.sub(" ", node.text(deep=False) or ""))
        elif tag in _DROP or tag is None or tag.startswith("-"):
            continue
        elif tag == "br":
            parts.append(_BR)
        elif tag == "pre":
            parts.append(_PARA + (node.text(deep=True) or "").replace("\n", _BR) + _PARA)
        else:
            end = (_PARA if tag in _BLOCK else _LINE if tag in _LINE_TAGS
                   else _CELL if tag in ("td", "th") else "")
            if end != _CELL:
                parts.append(end)
            stack.append(end)
            stack.extend(reversed(list(node.iter(include_text=True))))
    text = "".join(parts)
    text = re.sub(f"[ {_CELL}]*{_CELL}[ {_CELL}]*(?=[{_PARA}{_LINE}{_BR}]|$)", "", text)  # last cells
    text = _BREAK_RUN.sub(_resolve_breaks, text.replace(_CELL, " | "))
    return title, normalize_text(text)

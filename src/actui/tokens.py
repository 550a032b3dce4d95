"""The one token estimator: how many tokens an agent's model pays for a text.

Budgets (``maxTokens``, the first view's default size) are in tokens, because
tokens are what an agent's user pays for; but the project ships no tokenizer,
so every budget is checked against this estimate, which is meant to err high
on the text actui renders (outlines, diffs, lists, page text):

- a run of ASCII letters costs one token per four letters of each of its
  case segments (``camelCase`` is ``camel`` + ``Case``), at least one;
- a run of digits one token per three digits (tokenizers split digits so);
- a CJK ideograph, kana or hangul syllable one token each; a run of other
  non-ASCII letters one per three;
- a space before a word nothing; a line break, or any other run of blanks, one
  token per four characters, at least one;
- every other character (punctuation, symbols) one token, and one per two
  UTF-8 bytes beyond ASCII (an emoji is two).

Measured against OpenAI's o200k_base (``bench/README.md`` has the command):
actui's MiniWoB results count 1.1-1.4x their real tokens (1.2x overall);
English, German, Russian and CJK prose 1.0-1.6x. It undercounts text built to
be hard to tokenize (random mixed-case letters, base64: about 0.6x), which a
UI rarely shows. This module must not know what the text means.
"""

from __future__ import annotations

import math
import re

_PIECES = re.compile(r"[A-Za-z]+|[0-9]+|[^\W\d_]+| (?=\S)|\s+|.", re.DOTALL)
_SEGMENTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """The estimated token count of ``text`` (see the module docstring for the rules)."""
    return sum(_cost(piece) for piece in _PIECES.findall(text))


def _cost(piece: str) -> int:
    first = piece[0]
    if first.isascii() and first.isalpha():
        return sum(math.ceil(len(s) / 4) for s in _SEGMENTS.findall(piece))
    if first.isdigit() and first.isascii():
        return math.ceil(len(piece) / 3)
    if first.isalpha():
        wide = len(_WIDE.findall(piece))
        return wide + math.ceil((len(piece) - wide) / 3)
    if piece == " ":
        return 0
    if first.isspace():
        return math.ceil(len(piece) / 4)
    return max(1, len(piece.encode("utf-8", "replace")) // 2)


def fits(text: str, budget: int | None) -> bool:
    """Whether ``text`` is within ``budget`` tokens (no budget: always)."""
    return budget is None or estimate_tokens(text) <= budget

"""A definition's `when:` in a spack.yaml, decided without running it.

Spack evaluates `when:` as Python over the host (`platform`, `os`, `target`, `arch`, `env`, `hostname`, `re`...).
Here only the part of that language that names the platform is decided: string literals, the names `platform`,
`os` and `target` (the platform planned for), `True` and `False`, lists and tuples of those, `==`, `!=`, `in`,
`not in`, `and`, `or`, `not` and parentheses. Anything else (another name, a call such as
`arch.satisfies(...)`, an attribute, a number) is `NotEvaluated`, saying what it met: nothing is ever run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from cachetui.core.spack.words import echo

MAX_CONDITION = 2000  # characters: a longer condition is not read
MAX_DEPTH = 40  # nested parentheses, brackets and `not`s
NAMES = ("platform", "os", "target")

_TOKEN = re.compile(r"""\s*(?:(?P<string>'[^'\\\n]*'|"[^"\\\n]*")|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""
                    r"""|(?P<op>==|!=|[()\[\],])|(?P<other>\S))""")

Value = str | bool | tuple[str, ...]


class NotEvaluated(ValueError):
    """A condition this reader does not decide; the message says what it met."""


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str


def evaluate(condition: str, names: Mapping[str, str]) -> bool:
    """Whether `condition` holds where `platform`, `os` and `target` are `names`' values; NotEvaluated if it
    uses anything else (an unknown OS, given as "", makes a condition naming `os` not evaluated)."""
    if len(condition) > MAX_CONDITION:
        raise NotEvaluated(f"longer than {MAX_CONDITION} characters")
    tokens = _tokens(condition)
    parser = _Parser(tokens, names)
    value = parser.expression(0)
    if parser.at != len(tokens):
        raise NotEvaluated(f"unexpected {echo(tokens[parser.at].text, quoted=True)}")
    return bool(value)


def holds(when: object, names: Mapping[str, str], said: Callable[[str], None]) -> bool:
    """Whether an entry's `when:` holds: none (or true) holds; a condition this evaluator cannot decide is taken to
    hold, and `said` hears why (the caller says of what, and what follows)."""
    if when is None or isinstance(when, bool):
        return when is not False
    try:
        return evaluate(str(when), names)
    except NotEvaluated as exc:
        said(f"its condition {echo(str(when), quoted=True)} is not evaluated ({exc})")
        return True


def _tokens(text: str) -> list[_Token]:
    found = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # only trailing whitespace is left
            break
        position = match.end()
        kind = match.lastgroup or "other"
        found.append(_Token(kind, match.group(kind)))
    if not found:
        raise NotEvaluated("empty")
    return found


class _Parser:
    def __init__(self, tokens: list[_Token], names: Mapping[str, str]) -> None:
        self.tokens, self.names, self.at = tokens, names, 0

    def _peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _is(self, text: str) -> bool:
        token = self._peek()
        return token is not None and token.text == text and token.kind in ("name", "op")

    def _take(self, text: str) -> None:
        if not self._is(text):
            token = self._peek()
            raise NotEvaluated(f"expected {text!r}" + (f", found {echo(token.text, quoted=True)}" if token else ""))
        self.at += 1

    def expression(self, depth: int) -> Value:  # or
        value = self.conjunction(depth)
        while self._is("or"):
            self.at += 1
            right = self.conjunction(depth)
            value = value or right
        return value

    def conjunction(self, depth: int) -> Value:  # and
        value = self.negation(depth)
        while self._is("and"):
            self.at += 1
            right = self.negation(depth)
            value = value and right
        return value

    def negation(self, depth: int) -> Value:
        if self._is("not"):
            if depth >= MAX_DEPTH:
                raise NotEvaluated("nested too deeply")
            self.at += 1
            return not self.negation(depth + 1)
        return self.comparison(depth)

    def comparison(self, depth: int) -> Value:
        left = self.atom(depth)
        if self._is("=="):
            self.at += 1
            return left == self.atom(depth)
        if self._is("!="):
            self.at += 1
            return left != self.atom(depth)
        negated = False
        if self._is("not") and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1].text == "in":
            self.at += 1
            negated = True
        if self._is("in"):
            self.at += 1
            right = self.atom(depth)
            if isinstance(right, bool) or isinstance(left, bool) or isinstance(left, tuple):
                raise NotEvaluated("'in' needs a string on its left and a string or a list on its right")
            found = left in right
            return not found if negated else found
        return left

    def atom(self, depth: int) -> Value:
        if depth >= MAX_DEPTH:
            raise NotEvaluated("nested too deeply")
        token = self._peek()
        if token is None:
            raise NotEvaluated("ends too early")
        self.at += 1
        if token.kind == "string":
            return token.text[1:-1]
        if token.kind == "name":
            if token.text in ("True", "False"):
                return token.text == "True"
            if token.text in NAMES:
                value = self.names.get(token.text, "")
                if not value:
                    raise NotEvaluated(f"this platform's {token.text} is not known")
                after = self._peek()
                if after is not None and after.text in (".", "("):
                    raise NotEvaluated(f"a method or call on {token.text}")
                return value
            raise NotEvaluated(f"names {echo(token.text, quoted=True)}")
        if token.text in ("(", "["):
            closing = ")" if token.text == "(" else "]"
            items: list[Value] = []
            while not self._is(closing):
                items.append(self.expression(depth + 1))
                if not self._is(","):
                    break
                self.at += 1
            self._take(closing)
            if token.text == "(" and len(items) == 1 and not self.tokens[self.at - 2].text == ",":
                return items[0]  # parentheses around one expression
            if not all(isinstance(item, str) for item in items):
                raise NotEvaluated("a list holds something other than strings")
            return tuple(str(item) for item in items)
        raise NotEvaluated(f"unexpected {echo(token.text, quoted=True)}")

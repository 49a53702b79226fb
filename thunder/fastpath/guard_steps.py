"""The parts a guard is made of, and its two renderings (shared by ``guard.py`` and the modules it uses).

A guard's body is a list of ``Step``s, each a few lines of Python that either bind a value or end the guard with a
``Verdict``: ``__MISS`` (the prologue would fail) or ``__DECLINE`` (the guard cannot tell; Thunder's path decides).
The fast form returns the verdict alone. The explaining form, compiled only to explain a miss (``explain.py``),
returns ``(verdict, message)`` instead: the step's ``Reason`` in words, with the value that the call gave; where a
step has ``explaining`` lines (a check made for many values at once, told value by value), it runs those instead.
"""

from __future__ import annotations

from dataclasses import dataclass

MISS = object()
DECLINE = object()


class Unsupported(Exception):
    """The prologue uses something a guard cannot express; the entry stays on Thunder's path."""


class NotThisCall(Unsupported):
    """The call that a guard was to be built from does not pass the entry's own checks (its arguments changed since
    its lookup): a later call of the entry tries again."""


@dataclass(frozen=True)
class Reason:
    """A check in words: what it looks at, what the entry expects, and the source of the value that the call gives."""

    subject: str  # "args[1] (n)", "grad mode"
    expected: str  # "3", "enabled"
    given: str | None = None  # source evaluated in the guard's scope, only when explaining
    note: str = ""  # appended, e.g. "(cache=constant values)"
    words: bool = False  # the given value is already in words (str), not a value to show by its repr

    def describe(self, given) -> str:
        text = f"{self.subject}: {self.expected} expected, {given if self.words else repr(given)} given"
        return f"{text} {self.note}" if self.note else text


@dataclass(frozen=True)
class ValueReason(Reason):
    """A Python value's check: the value expected and given, with their types where those differ."""

    value: object = None

    def describe(self, given) -> str:
        expected, shown = repr(self.value), repr(given)
        if type(given) is not type(self.value):
            expected, shown = f"{expected} ({type(self.value).__name__})", f"{shown} ({type(given).__name__})"
        text = f"{self.subject}: value {expected} expected, {shown} given"
        return f"{text} {self.note}" if self.note else text


@dataclass(frozen=True)
class Verdict:
    """A line of a step that ends the guard with a verdict: ``{head}return {verdict}``. The fast form returns the
    verdict alone, the explaining form the verdict and the step's reason in words (``render``)."""

    head: str  # the indentation and an ``if ...: `` that guards the return, or nothing
    verdict: str  # "__MISS" or "__DECLINE"

    def indented(self, prefix: str) -> Verdict:
        return Verdict(prefix + self.head, self.verdict)

    def render(self, explanation: str | None = None) -> str:
        returned = self.verdict if explanation is None else f"{self.verdict}, {explanation}"
        return f"{self.head}return {returned}"


def miss_if(condition: str) -> Verdict:
    return Verdict(f"if {condition}: ", "__MISS")


DECLINE_NOW = Verdict("", "__DECLINE")


@dataclass(frozen=True)
class Step:
    """A few lines of a guard's body (source, or ``Verdict``s), and what they mean in words where they can fail."""

    lines: tuple[str | Verdict, ...]
    reason: Reason | None = None  # what a Verdict in `lines` means
    explaining: tuple[str, ...] | None = None  # the lines of the explaining form, where they differ


def bind(name: str, expression: str) -> Step:
    return Step((f"{name} = {expression}",))


def miss_unless(condition: str, reason: Reason | None = None) -> Step:
    return Step((miss_if(f"not ({condition})"),), reason)


def _rendered(line: str | Verdict, explanation: str | None = None) -> str:
    return line if isinstance(line, str) else line.render(explanation)


def fast_lines(steps) -> list[str]:
    return [_rendered(line) for step in steps for line in step.lines]


def explaining_lines(steps) -> list[str]:
    """The explaining form's body: before step ``k``, ``__step = k`` (named when the step raises); its verdicts
    return ``(verdict, __say(k, lambda: given))``."""
    lines = []
    for k, step in enumerate(steps):
        lines.append(f"__step = {k}")
        if step.explaining is not None:
            lines.extend(step.explaining)
            continue
        given = step.reason.given if step.reason is not None and step.reason.given else "None"
        lines.extend(_rendered(line, f"__say({k}, lambda: {given})") for line in step.lines)
    return lines


def say(steps, k: int, given) -> str:
    """Step ``k``'s reason in words, with ``given()`` (a thunk: evaluating it may raise) as the call's value."""
    reason = steps[k].reason
    if reason is None:
        return f"check {k} of the guard failed"
    try:
        return reason.describe(given())
    except Exception as e:
        return f"{reason.subject}: {reason.expected} expected; reading what the call gave raised {type(e).__name__}"

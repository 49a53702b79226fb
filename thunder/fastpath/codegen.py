"""Generated functions: an indenting source buffer, the step that compiles a function from it, and values as source.

The guards (``guard.py``) and the hit functions (``hit_function.py``) are Python source generated once per cache entry
and compiled with ``exec``, as Thunder compiles its traces and as dynamo's ``build_guard_function`` does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator

import torch


class CodeBuffer:
    """Source lines under construction, each written at the current indentation."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._depth = 0

    def write(self, line) -> None:
        """Writes ``line``: source, or an object that indents itself (``indented(prefix)``, a guard's Verdict)."""
        prefix = "    " * self._depth
        self._lines.append(prefix + line if isinstance(line, str) else line.indented(prefix))

    def write_all(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    @contextlib.contextmanager
    def indented(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def lines(self) -> list:
        return list(self._lines)

    def source(self) -> str:
        return "\n".join(self._lines) + "\n"


def block(header: str, body: Iterable) -> list:
    """``header`` (``if ...:``, ``try:``, ``else:``) and ``body`` indented under it, as lines: the pieces that the
    guard's steps and the hit functions are made of, rendered by the same buffer as the whole function."""
    code = CodeBuffer()
    code.write(header)
    with code.indented():
        code.write_all(body)
    return code.lines()


def function_source(
    name: str,
    body: Iterable[str],
    on_pass: Iterable[str],
    *,
    handler: str = "except Exception:",
    on_error: str = "return __MISS",
) -> str:
    """``def name(args, kwargs)``: ``body`` inside ``try`` (an exception caught by ``handler`` runs ``on_error``), then
    ``on_pass``."""
    code = CodeBuffer()
    code.write(f"def {name}(args, kwargs):")
    with code.indented():
        code.write("try:")
        with code.indented():
            code.write_all(body)
        code.write(handler)
        with code.indented():
            code.write(on_error)
        code.write_all(on_pass)
    return code.source()


def compile_function(source: str, name: str, global_ns: dict):
    """The function ``name`` defined by ``source``, with a copy of ``global_ns`` as its globals."""
    namespace = dict(global_ns)
    exec(compile(source, f"thunder.fastpath.{name}", "exec"), namespace)
    # namespace is the function's globals: left in it, the function would make a reference cycle with them.
    return namespace.pop(name)


class Constants:
    """A value as guard source: a literal where it has one, else a name (``__c0``, ...) bound in the namespace."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.count = 0

    def __call__(self, value) -> str:
        if (
            value is None
            or type(value) in (bool, int, str)
            or (type(value) is float and value == value and abs(value) != float("inf"))
        ):
            return repr(value)
        if isinstance(value, torch.dtype):
            return str(value)
        if value in (bool, int, float, complex, str):
            return value.__name__
        name = f"__c{self.count}"
        self.count += 1
        self.namespace[name] = value
        return name

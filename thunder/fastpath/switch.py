"""Which callables take the fast path: the process-wide default and ``thunder.jit``'s ``fastpath=`` option.

``THUNDER_FASTPATH`` sets the default when this module is first imported (``ON_BY_DEFAULT`` where it is not set);
``enable()`` and ``disable()`` change it for callables jitted afterwards; ``thunder.jit(fn, fastpath=True)`` (or
``False``) decides for one callable. The choice is made once, when ``thunder.jit`` is called, and travels in the
compile options (``compile_option``), so that a callable that Thunder jits again from a jitted one
(``add_transform``: ``thunder.distributed.ddp``/``fsdp``, ``grad``, ThunderFX's subgraphs) keeps it.
"""

from __future__ import annotations

import os
import warnings

# Whether callables take the fast path where neither THUNDER_FASTPATH nor fastpath= says.
ON_BY_DEFAULT = False

_TRUE = ("1", "true", "on", "yes")
_FALSE = ("0", "false", "off", "no")


def parse_flag(variable: str, default: bool | None) -> bool | None:
    """The value of the environment variable ``variable`` as a switch: ``default`` where it is not set, and, with a
    warning that names the value, where it is not one of the usual spellings of on and off."""
    value = os.environ.get(variable)
    if value is None:
        return default
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    warnings.warn(
        f"{variable}={value!r} is not understood (use one of {', '.join(_TRUE)} to turn it on, or"
        f" {', '.join(_FALSE)} to turn it off); it is ignored",
        stacklevel=2,
    )
    return default


_from_environment = parse_flag("THUNDER_FASTPATH", None)
_enabled = ON_BY_DEFAULT if _from_environment is None else _from_environment


def enable() -> None:
    """Callables jitted from now on take the fast path."""
    global _enabled
    _enabled = True


def disable() -> None:
    """Callables jitted from now on take Thunder's path (those already jitted keep theirs)."""
    global _enabled
    _enabled = False


def is_enabled() -> bool:
    """Whether callables jitted now take the fast path, unless ``thunder.jit``'s ``fastpath=`` says otherwise."""
    return _enabled


def turn_on_by_default() -> None:
    """Callables jitted from now on take the fast path, unless ``THUNDER_FASTPATH`` (read at import) says otherwise."""
    global _enabled
    if _from_environment is None:
        _enabled = True


def compile_option(fastpath: bool | None) -> dict:
    """The compile options that carry ``thunder.jit``'s choice: none where the callable takes Thunder's path by
    default (its compile options are then those it would have without the fast path)."""
    fast = chosen(fastpath)
    return {"fastpath": fast} if fast or fastpath is not None else {}


def chosen(fastpath: bool | None) -> bool:
    """What ``thunder.jit(fn, fastpath=...)`` decides: the option where it is given, the default where it is None."""
    if fastpath is None:
        return _enabled
    if type(fastpath) is not bool:
        raise TypeError(f"thunder.jit's fastpath= takes True, False or None, not {fastpath!r}")
    return fastpath

"""Which callables take the fast path: the process-wide default and ``thunder.jit``'s ``fastpath=`` option.

``THUNDER_FASTPATH`` sets the default when this module is first imported; ``enable()`` and ``disable()`` change it
for callables jitted afterwards; ``thunder.jit(fn, fastpath=True)`` (or ``False``) decides for one callable. The
choice is made once, when ``thunder.jit`` is called, and travels in the compile options, so that a callable that
Thunder jits again from a jitted one (``add_transform``: ``thunder.distributed.ddp``/``fsdp``, ``grad``, ThunderFX's
subgraphs) keeps it.
"""

from __future__ import annotations

import os

_TRUE = ("1", "true", "on", "yes")
_FALSE = ("0", "false", "off", "no")


def parse_flag(variable: str, default: bool) -> bool:
    """The value of the environment variable ``variable`` as a switch (``default`` where it is not set). Raises
    ``ValueError`` for a value that is not one of the usual spellings of on and off."""
    value = os.environ.get(variable)
    if value is None:
        return default
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ValueError(
        f"{variable}={value!r} is not understood: use one of {', '.join(_TRUE)} to turn it on,"
        f" or {', '.join(_FALSE)} to turn it off"
    )


_enabled = parse_flag("THUNDER_FASTPATH", True)


def enable() -> None:
    """Callables jitted from now on take the fast path."""
    global _enabled
    _enabled = True


def disable() -> None:
    """Callables jitted from now on take upstream's path (those already jitted keep theirs)."""
    global _enabled
    _enabled = False


def is_enabled() -> bool:
    """Whether callables jitted now take the fast path, unless ``thunder.jit``'s ``fastpath=`` says otherwise."""
    return _enabled


def chosen(fastpath: bool | None) -> bool:
    """What ``thunder.jit(fn, fastpath=...)`` decides: the option where it is given, the default where it is None."""
    if fastpath is None:
        return _enabled
    if type(fastpath) is not bool:
        raise TypeError(f"thunder.jit's fastpath= takes True, False or None, not {fastpath!r}")
    return fastpath

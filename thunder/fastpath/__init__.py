"""Cheap cache hits for ``thunder.jit``.

Each cache entry of a jitted callable gets one generated function that decides a hit exactly as the entry's prologue
would and then runs what upstream's call runs, and nothing else (NOTE [The stages of a hit] in ``hit_function.py``).
The switch (``switch.py``): ``thunder.jit(fn, fastpath=False)`` (or ``True``) decides for one callable, ``enable()``
and ``disable()`` for callables jitted afterwards, ``THUNDER_FASTPATH`` sets the default. ``recompile_reasons(f)``
says, for each call of ``f`` that missed every cache entry, which check of each entry failed; ``stats(f)`` counts what
``f`` did; ``THUNDER_FASTPATH_LOGS=recompiles`` logs each miss (``explain.py``).

On a Thunder that calls the fast path's entry points itself (``entry.py``), the fast path is on by default. On one
without them (lightning-thunder 0.2.6), importing this package installs them (``overlay.py``), and callables jitted
from then on take the fast path.

Modules, each with the upstream code it stands for (CONTRIBUTING.md has the table): ``dispatch.py`` (the jitted
callable), ``hit_function.py`` and ``publication.py`` (a hit of one entry), ``guard.py`` with its parts
(``prologue_checks.py``, ``state_checks.py``, ``tensor_checks.py``, ``guard_steps.py``, ``codegen.py``) and
``explain.py``, for ``thunder/__init__.py``; ``module.py`` (``ThunderModule.__call__``, ``thunder/core/module.py``);
``autograd.py`` (the autograd connection of hits that have a backward, ``thunder/executors/torch_autograd.py``);
``nvfuser.py`` (the nvFuser region call, ``thunder/executors/nvfuserex_impl.py``); ``thunderfx.py`` (the split module
that ThunderFX's backend returns, ``thunder/dynamo/compiler.py``).
"""

from __future__ import annotations

from thunder.fastpath.dispatch import GuardBuildWarning
from thunder.fastpath.entry import thunder_has_entry_points
from thunder.fastpath.explain import (
    FastPathStats,
    MissRecord,
    fastpath_state,
    log_from_environment,
    recompile_reasons,
    stats,
)
from thunder.fastpath.switch import disable, enable, is_enabled

__all__ = [
    "FastPathStats",
    "GuardBuildWarning",
    "MissRecord",
    "disable",
    "enable",
    "is_enabled",
    "is_fast",
    "recompile_reasons",
    "stats",
]


def is_fast(jitted) -> bool:
    """Whether a callable returned by ``thunder.jit`` takes the fast path."""
    return fastpath_state(jitted) is not None


if not thunder_has_entry_points():
    from thunder.fastpath import overlay

    overlay.install()

log_from_environment()

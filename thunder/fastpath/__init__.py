"""Cheap cache hits for ``thunder.jit``.

Each cache entry of a jitted callable gets one generated function that decides a hit exactly as the entry's prologue
would (its guard, ``guard.py``) and then runs what Thunder's call runs, and nothing else (NOTE: The stages of a hit, in
``hit_function.py``). Each module's docstring names the Thunder code that it stands for.
"""
# stack: from 04-jit-fastpath

# The switch (switch.py): thunder.jit(fn, fastpath=True) (or False) decides for one callable, enable() and disable()
# for callables jitted afterwards, THUNDER_FASTPATH sets the default. recompile_reasons(f) says, for each call of f
# that missed every cache entry, which check of each entry failed; stats(f) counts what f did;
# THUNDER_FASTPATH_LOGS=recompiles logs each miss (explain.py). entry.py is where thunder.jit calls the fast path.

from thunder.fastpath import entry  # noqa: F401  (where thunder.jit hands callables over)
from thunder.fastpath.dispatch import FastPathDeclinedWarning, GuardBuildWarning
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
    "FastPathDeclinedWarning",
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


# overlay: begin (not in the upstream/ series: a Thunder without the entry points gets them here)
from thunder.fastpath import overlay  # noqa: E402

if not overlay.thunder_has_entry_points():
    overlay.install()
# overlay: end

log_from_environment()
# stack: end

"""Cheap cache hits for ``thunder.jit``.

``import thunder.fastpath`` turns the fast path on for callables jitted afterwards (unless the environment
variable ``THUNDER_FASTPATH`` is ``0``); ``enable()``, ``disable()`` and ``is_enabled()`` control it, and
``thunder.jit(fn, fastpath=False)`` (or ``True``) decides for one callable. Callables jitted with and without
the fast path live side by side: the switch is read when ``thunder.jit`` is called, not on each call, and a
callable that upstream jits again from a jitted one (``add_transform``) keeps that one's choice.

``recompile_reasons(f)`` says, for each call of ``f`` that missed every cache entry, which check of each entry
failed; ``stats(f)`` counts what ``f`` did; ``THUNDER_FASTPATH_LOGS=recompiles`` logs each miss (``explain.py``).

Modules, each with the upstream file it stands for (CONTRIBUTING.md has the table): ``cache_hit.py`` (the jitted
callable's hit path) with ``guard.py`` and its parts (``prologue_checks.py``, ``state_checks.py``,
``tensor_checks.py``, ``guard_steps.py``, ``codegen.py``) and ``explain.py``, for ``thunder/__init__.py``;
``module.py`` (``ThunderModule.__call__``, for ``thunder/core/module.py``); ``autograd.py`` (the autograd connection
of hits that have a backward, for ``thunder/executors/torch_autograd.py``); ``nvfuser.py`` (the nvFuser region call,
for ``thunder/executors/nvfuserex_impl.py``).
"""

from __future__ import annotations

import functools
import inspect
import os

import thunder
from thunder.core.module import ThunderModule
from thunder.fastpath import nvfuser
from thunder.fastpath.cache_hit import make_fast
from thunder.fastpath.explain import (
    FastPathStats,
    MissRecord,
    fastpath_state,
    log_from_environment,
    recompile_reasons,
    stats,
)
from thunder.fastpath.module import FastThunderModule

__all__ = [
    "FastPathStats",
    "MissRecord",
    "disable",
    "enable",
    "is_enabled",
    "is_fast",
    "jit",
    "recompile_reasons",
    "stats",
]

# Keep the original even if this module is imported twice (importlib.reload, or two import paths).
_upstream_jit = getattr(thunder.jit, "_lc_upstream_jit", thunder.jit)
_enabled = os.environ.get("THUNDER_FASTPATH", "1") != "0"


def enable() -> None:
    """Callables jitted from now on take the fast path."""
    global _enabled
    _enabled = True


def disable() -> None:
    """Callables jitted from now on take upstream's path (those already jitted keep theirs)."""
    global _enabled
    _enabled = False


def is_enabled() -> bool:
    return _enabled


def is_fast(jitted) -> bool:
    """Whether a callable returned by ``thunder.jit`` takes the fast path."""
    return fastpath_state(jitted) is not None


@functools.wraps(_upstream_jit)
def jit(fn, /, *, fastpath: bool | None = None, **options):
    fast = _enabled if fastpath is None else bool(fastpath)
    # The choice goes in with the compile options, which add_transform (thunder.distributed.ddp and fsdp,
    # thunder.core.transforms.grad, ...) passes back to thunder.jit when it jits the function again: the
    # transformed callable keeps this one's choice.
    jitted = _upstream_jit(fn, fastpath=fast, **options)
    if not fast:
        return jitted
    cd, cs = jitted._lc_cd, jitted._lc_cs
    cd._lc_fastpath = True  # read when nvFuser regions are created (nvfuser.py)
    if isinstance(jitted, ThunderModule):
        fast = make_fast(jitted._forward_fn, cd, cs, thunder_module=jitted)
        if fast is not None:
            jitted._forward_fn = fast
            if type(jitted) is ThunderModule:
                jitted.__class__ = FastThunderModule
        return jitted
    return make_fast(jitted, cd, cs) or jitted


jit._lc_upstream_jit = _upstream_jit


def _signature_with_fastpath(upstream) -> inspect.Signature:
    # Upstream's parameters plus `fastpath`: code that reads jit's keyword names (ThunderFX's
    # get_thunder_jit_kwargs uses inspect.getfullargspec, which does not follow __wrapped__) sees all of them.
    sig = inspect.signature(upstream)
    params = list(sig.parameters.values())
    fastpath = inspect.Parameter("fastpath", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=bool | None)
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    return sig.replace(parameters=params[:at] + [fastpath] + params[at:])


jit.__signature__ = _signature_with_fastpath(_upstream_jit)


thunder.jit = jit
nvfuser.install()
log_from_environment()

"""Where ``thunder.jit`` hands a callable over to the fast path.

* ``switch.compile_option(fastpath)``: the compile options that carry the choice;
* ``LookupRecord().recording(get_computation_and_inputs)``: for a callable that takes the fast path, the cache lookup
  that ``fn_`` calls, recording per thread the entry that it returns (``publication.py``);
* ``fast_jitted(jitted, lookups)``: the end of ``thunder.jit`` for such a callable, with that record. It returns the
  callable that ``thunder.jit`` returns: the fast callable (``dispatch.make_fast``) for a function, and for a module
  the same ``ThunderModule`` with the fast callable as its ``_forward_fn``.
"""

from __future__ import annotations

import warnings

from thunder.core.module import ThunderModule
from thunder.fastpath.dispatch import FAST_CACHE_OPTIONS, FastPathDeclinedWarning, make_fast, spelled
from thunder.fastpath.grad_mode import keep_grad_mode_per_thread
from thunder.fastpath.publication import LookupRecord

__all__ = ["LookupRecord", "fast_jitted"]


def fast_jitted(jitted, lookups: LookupRecord):
    """What ``thunder.jit`` returns on the fast path, from what it made for Thunder's path (``jitted``: ``fn_`` or
    its ``ThunderModule``, with the compile data and statistics set; ``lookups``: the record of ``fn_``'s cache
    lookups). Callables whose cache option the fast path does not serve ("no caching", "same input") stay as they
    are, with a warning; the others' compile data keeps its grad mode per thread (``grad_mode.py``)."""
    cd, cs = jitted._lc_cd, jitted._lc_cs
    if cd.cache_option not in FAST_CACHE_OPTIONS:
        warnings.warn(
            f"thunder.jit(..., fastpath=True): the fast path serves the cache options"
            f" {' and '.join(repr(spelled(o)) for o in FAST_CACHE_OPTIONS)}, not {spelled(cd.cache_option)!r};"
            " this callable takes Thunder's path",
            FastPathDeclinedWarning,
            stacklevel=3,
        )
        return jitted
    keep_grad_mode_per_thread(cd)
    if isinstance(jitted, ThunderModule):
        jitted._forward_fn = make_fast(jitted._forward_fn, cd, cs, lookups, thunder_module=jitted)
        # stack: from 07-module-call
        from thunder.fastpath.module import FastThunderModule

        jitted.__class__ = FastThunderModule  # called without nn.Module.__call__ where that has nothing to do
        # stack: end
        return jitted
    return make_fast(jitted, cd, cs, lookups)

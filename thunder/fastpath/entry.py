"""The fast path's entry points: the places where Thunder hands a jitted callable over to it.

* ``switch.compile_option(fastpath)``: in ``thunder.jit``, the compile options that carry the choice;
* ``LookupRecord().recording(get_computation_and_inputs)``: in ``thunder.jit``, for a callable that takes the fast
  path, the cache lookup that ``fn_`` calls, recording per thread the entry that it returns (``publication.py``);
* ``fast_jitted(jitted, lookups)``: the end of ``thunder.jit`` for such a callable, with that record. It returns the
  callable that ``thunder.jit`` returns: the fast callable (``dispatch.make_fast``) for a function, and for a module
  the same ``ThunderModule``, now a ``FastThunderModule`` (``module.py``) whose ``_forward_fn`` is the fast callable;
* ``fusion_region(wrapper, inputs)`` (``nvfuser.py``): the end of ``create_fusion_definition_wrapper``, which gives
  regions of such callables a ``FusionRegion``;
* ``thunderfx_graph(split_module, thunder_options)``: the end of ``ThunderCompiler.__call__`` (ThunderFX's backend),
  which returns what Dynamo calls for a graph whose regions it jitted.
"""

from __future__ import annotations

import warnings

from thunder.core.module import ThunderModule
from thunder.fastpath import switch
from thunder.fastpath.dispatch import FAST_CACHE_OPTIONS, FastPathDeclinedWarning, make_fast, spelled
from thunder.fastpath.grad_mode import keep_grad_mode_per_thread
from thunder.fastpath.module import FastThunderModule
from thunder.fastpath.nvfuser import fusion_region
from thunder.fastpath.publication import LookupRecord

__all__ = [
    "LookupRecord",
    "fast_jitted",
    "fusion_region",
    "thunderfx_graph",
]


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
        jitted.__class__ = FastThunderModule
        return jitted
    return make_fast(jitted, cd, cs, lookups)


def thunderfx_graph(split_module, thunder_options: dict):
    """What ``ThunderCompiler`` returns to Dynamo for ``split_module`` (the graph it split, its regions jitted with
    ``thunder_options``): where the regions take the fast path, the lean call of ``thunderfx.graph_call``."""
    if switch.chosen(thunder_options.get("fastpath")):
        from thunder.fastpath.thunderfx import graph_call  # ThunderFX's backend is its one user

        return graph_call(split_module)
    return split_module

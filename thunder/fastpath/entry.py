"""The fast path's entry points: the places where Thunder hands a jitted callable over to it.

* ``LookupRecord().recording(get_computation_and_inputs)``: in ``thunder.jit``, for such a callable, the cache lookup
  that ``fn_`` calls, recording per thread the entry that it returns (``publication.py``);
* ``fast_jitted(jitted, lookups)``: the end of ``thunder.jit``, for a callable whose ``fastpath`` compile option is
  on (``switch.chosen``), with that record. It returns the callable that ``thunder.jit`` returns: the fast callable
  (``dispatch.make_fast``) for a function, and for a module the same ``ThunderModule``, its ``_forward_fn`` the fast
  callable and its ``_fastpath_call`` the fast module call;
* ``thunder_module_call(module, args, kwargs)`` (``module.py``): ``ThunderModule.__call__`` of such a module;
* ``fusion_region(wrapper, inputs)`` (``nvfuser.py``): the end of ``create_fusion_definition_wrapper``, which gives
  regions of such callables a ``FusionRegion``;
* ``thunderfx_graph(split_module, thunder_options)``: the end of ``ThunderCompiler.__call__`` (ThunderFX's backend),
  which returns what Dynamo calls for a graph whose regions it jitted.

A Thunder that has them (``thunder_has_entry_points``: lightning-thunder with the ``upstream/`` patch series) calls
them itself; on one without them (lightning-thunder 0.2.6), ``overlay.py`` installs them when ``thunder.fastpath`` is
imported.
"""

from __future__ import annotations

from thunder.core.module import ThunderModule
from thunder.fastpath import switch
from thunder.fastpath.dispatch import FAST_CACHE_OPTIONS, make_fast
from thunder.fastpath.grad_mode import keep_grad_mode_per_thread
from thunder.fastpath.module import thunder_module_call
from thunder.fastpath.nvfuser import fusion_region
from thunder.fastpath.publication import LookupRecord

__all__ = [
    "LookupRecord",
    "fast_jitted",
    "fusion_region",
    "thunder_has_entry_points",
    "thunder_module_call",
    "thunderfx_graph",
]


def thunder_has_entry_points() -> bool:
    """Whether the installed Thunder calls the entry points itself (its ``ThunderModule`` has the slot for the fast
    module call)."""
    return hasattr(ThunderModule, "_fastpath_call")


def fast_jitted(jitted, lookups: LookupRecord):
    """What ``thunder.jit`` returns on the fast path, from what it made for upstream's path (``jitted``: ``fn_`` or
    its ``ThunderModule``, with the compile data and statistics set; ``lookups``: the record of ``fn_``'s cache
    lookups). Callables whose cache option the fast path does not serve ("no caching", "same input") stay as they
    are; the others' compile data keeps its grad mode per thread (``grad_mode.py``)."""
    cd, cs = jitted._lc_cd, jitted._lc_cs
    if cd.cache_option in FAST_CACHE_OPTIONS:
        keep_grad_mode_per_thread(cd)
    if isinstance(jitted, ThunderModule):
        fast = make_fast(jitted._forward_fn, cd, cs, lookups, thunder_module=jitted)
        if fast is not None:
            jitted._forward_fn = fast
            jitted._fastpath_call = thunder_module_call
        return jitted
    return make_fast(jitted, cd, cs, lookups) or jitted


def thunderfx_graph(split_module, thunder_options: dict):
    """What ``ThunderCompiler`` returns to Dynamo for ``split_module`` (the graph it split, its regions jitted with
    ``thunder_options``): where the regions take the fast path, the lean call of ``thunderfx.graph_call``."""
    if switch.chosen(thunder_options.get("fastpath")):
        from thunder.fastpath.thunderfx import graph_call  # ThunderFX's backend is its one user

        return graph_call(split_module)
    return split_module

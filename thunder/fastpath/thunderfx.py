"""What ThunderFX's backend gives Dynamo for a graph on the fast path (the end of ``ThunderCompiler.__call__`` in
``thunder/dynamo/compiler.py``)."""

from __future__ import annotations

import torch

from thunder.fastpath import switch
from thunder.fastpath.module import module_call_only_calls_forward

__all__ = ["graph_call", "thunderfx_graph"]

# NOTE: The split module's call
# `ThunderCompiler` returns the split `GraphModule` (its regions jitted), and Dynamo calls a backend's result
# through `torch._dynamo.disable`, which wraps an `nn.Module` in an `OptimizedModule`. Each call of the graph then
# runs two `nn.Module.__call__` (the wrapper's and the split module's, the latter behind GraphModule's
# `_WrappedCall`) before the split module's generated `forward`: on a small graph, more than its jitted region
# costs. Dynamo's own "eager" backend returns `gm.forward` for this reason.
#
# On the fast path the backend returns `graph_call(split_module)` instead: a function that calls the split module's
# `forward` itself while `nn.Module.__call__` would do nothing else for either module (no hooks, global or the
# split module's; see `module_call_only_calls_forward`), and otherwise calls what Thunder's Dynamo calls, the split
# module behind `disable`, so that hooks fire for the same modules in the same order. The one thing it leaves out is
# `_WrappedCall`'s reprint of an exception raised by the generated `forward`'s own line (not by a module it calls):
# the exception itself is the same, and that `forward` only calls the split's submodules and unpacks their results.


def graph_call(split_module: torch.fx.GraphModule):
    """The callable that stands for ``split_module`` as the backend's result (NOTE "The split module's call")."""
    as_upstream = torch._dynamo.disable(split_module, reason="do not trace Dynamo-compiled graph")

    def call_split_module(*args, **kwargs):
        if module_call_only_calls_forward(split_module):
            # Read on each call, as nn.Module.__call__ does: GraphModule.recompile replaces the class's forward.
            return split_module.forward(*args, **kwargs)
        return as_upstream(*args, **kwargs)

    call_split_module.split_module = split_module
    return call_split_module


def thunderfx_graph(split_module, thunder_options: dict):
    """What ``ThunderCompiler`` returns to Dynamo for ``split_module`` (the graph it split, its regions jitted with
    ``thunder_options``): where the regions take the fast path, the lean call of ``graph_call``."""
    if switch.chosen(thunder_options.get("fastpath")):
        return graph_call(split_module)
    return split_module

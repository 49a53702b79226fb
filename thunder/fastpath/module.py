"""Calling a jitted module without ``nn.Module.__call__``: ``FastThunderModule``, the class of a ``ThunderModule`` on
the fast path.

``nn.Module.__call__`` runs ``_wrapped_call_impl`` and ``_call_impl``, which read the compiled-call slot, the
JIT tracing state, eight hook dicts and ``forward``, before ``ThunderModule.forward`` calls ``_forward_fn``:
three Python frames that cost more than a whole cache hit of the fast path on a small module.
``thunder_module_call`` reads the same state and, when none of it asks for anything (no hooks, not compiled, no
``torch.jit`` scope recording, no ``forward`` set on the instance) and no Thunder trace is being built (another
jitted callable calling this one while it is traced), hands the arguments to the fast callable's dispatcher itself;
otherwise it hands the call to ``nn.Module.__call__`` unchanged.

``entry.fast_jitted`` makes a module that takes the fast path a ``FastThunderModule``, whose ``__call__`` is
``thunder_module_call``; other ``ThunderModule`` instances keep ``nn.Module.__call__`` as they are.
"""

from __future__ import annotations

import torch.jit._trace as jit_trace
from torch.nn.modules import module as nn_module

from thunder.core.module import ThunderModule
from thunder.fastpath.dispatch import get_trace

_nn_module_call = nn_module.Module.__call__


def module_call_only_calls_forward(module) -> bool:
    """Whether ``nn.Module.__call__`` on ``module`` would do nothing but call ``module.forward``: no hooks (the
    module's or global), not compiled, no ``torch.jit`` scope recording, no ``forward`` set on the instance."""
    # The instance dict, read once: attribute reads on modules go through nn.Module's __getattr__ hook.
    d = module.__dict__
    return not (
        d["_forward_pre_hooks"]
        or d["_forward_hooks"]
        or d["_backward_pre_hooks"]
        or d["_backward_hooks"]
        or "_compiled_call_impl" in d  # set by nn.Module.compile()
        or "forward" in d
        # Read through the module on every call, as nn.Module does: the dicts can be replaced.
        or nn_module._global_forward_pre_hooks
        or nn_module._global_forward_hooks
        or nn_module._global_backward_pre_hooks
        or nn_module._global_backward_hooks
        # While torch.jit traces, nn.Module.__call__ goes through _slow_forward, which only differs from
        # calling forward when it records module scopes, that is when this map is set (trace_module).
        or jit_trace._trace_module_map is not None
    )


def thunder_module_call(module, args, kwargs):
    """``module(*args, **kwargs)`` for a ThunderModule on the fast path."""
    if get_trace(None) is not None:
        # Called while Thunder traces a caller: nn.Module.__call__, which Thunder's interpreter follows as
        # Thunder's (reading this module's state here would put it into the caller's prologue).
        return _nn_module_call(module, *args, **kwargs)
    if module_call_only_calls_forward(module):
        forward_fn = module.__dict__["_forward_fn"]
        try:
            dispatch = forward_fn._lc_dispatch  # the fast callable's (args, kwargs) entry: no repacking
        except AttributeError:  # _forward_fn replaced since thunder.jit
            return forward_fn(*args, **kwargs)
        return dispatch(args, kwargs)
    return _nn_module_call(module, *args, **kwargs)


class FastThunderModule(ThunderModule):
    """A ``ThunderModule`` on the fast path: the same module, called through ``thunder_module_call``."""

    def __call__(self, *args, **kwargs):
        return thunder_module_call(self, args, kwargs)

    def _get_name(self):
        return "ThunderModule"  # repr() as ThunderModule's

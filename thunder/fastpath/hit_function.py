"""The function generated for one cache entry (``CacheHit``): its guard, then what a hit of that entry runs.

Stands for changes to ``thunder/__init__.py``'s ``fn_``: ``get_computation_and_inputs`` with ``populate_cache_info``
(the guard, ``guard.py``), ``update_call_statistics``, the computation under ``torch.no_grad()``,
``maybe_connect_to_autograd``, ``call_epilogue`` and the closing ``set_grad_enabled``. ``dispatch.py`` decides which
entries' functions a call tries.

Timing fields of ``compile_stats`` (``last_trace_host_start`` and the like) describe the last call that went through
Thunder's path; hits do not take timestamps.
"""

# NOTE: The stages of a hit
# Thunder's fn_ runs, per call: the cache lookup (each entry's prologue, newest first), the computation under
# torch.no_grad(), maybe_connect_to_autograd and call_epilogue. Each guarded cache entry gets one generated function
# (CacheHit.call) that runs the same stages and nothing else:
# 1. guard: the entry's checks (guard.py), returning MISS or DECLINE where the prologue would fail or where the guard
#    cannot tell;
# 2. statistics: the counters and, when the entry hit changes, the traces that Thunder publishes in the compile stats;
# 3. computation: without Thunder's torch.no_grad() decorator, grad mode switched off around it only where it is on
#    and that can change the outputs (NOTE: Grad mode on a hit); an entry made under autocast keeps Thunder's
#    no_autocast layer and pushes onto the compile data's autocast stack as Thunder does on every such call.
# stack: from 06-nvfuser-regions
#    A computation that is one nvFuser region call is not called: the hit calls the region's executor itself
#    (nvfuser.single_region_call), without the region's layout check while the guard finds the sizes and strides of
#    the call that the region's current layout was prepared for (entry_layout);
# stack: end
# 4. autograd connection: CacheHit.connection, for an entry with a backward;
# 5. epilogue, unless it only passes outputs through (EpilogueShortcut).

# NOTE: Grad mode on a hit
# Thunder runs every computation with grad mode off. A hit leaves grad mode as it is where that cannot change the
# outputs: no input requires grad (the guard pins it), the computation runs on executors that grad mode does not
# change (_GRAD_NEUTRAL_EXECUTORS), and its outputs are new tensors (a view records the grad mode it was made in).
# Which outputs are views follows from the inputs' sizes and strides (a reshape views or copies by strides), so this
# holds only while the guard finds those of the call after which the entry got its guard (grad_free_on_layout).
# stack: from 06-nvfuser-regions
# For a single nvFuser region, it holds while the region's prepared layout says its outputs were new
# (grad_free_region).
# stack: end

from __future__ import annotations

import enum
import operator

import torch
from torch.utils._pytree import tree_leaves

from thunder.core.prims import OpTags, PrimIDs
from thunder.fastpath.codegen import block
from thunder.fastpath.guard import Guard
from thunder.fastpath.guard_steps import Unsupported
from thunder.fastpath.tensor_checks import outputs_are_new

# Executors whose calls grad mode does not change when no input requires grad (None: the trace's own Python lines).
# Others keep the switch, unexamined: custom executors may read grad mode (autograd.Function-based ones do), CUDA
# graphs replay what was captured, torch.compile keeps guards on global state.
_GRAD_NEUTRAL_EXECUTORS = (None, "torch", "python", "nvfuser")
_set_grad_enabled = torch._C._set_grad_enabled


class EpilogueShortcut(enum.Enum):
    """How the epilogue's result follows from the computation's outputs when it only passes them through."""

    FIRST = "first"  # the first output
    ALL = "all"  # all of them, as a tuple


class CacheHit:
    """One guarded cache entry and ``call``, the function generated for it (NOTE "The stages of a hit").
    ``call(args, kwargs)`` returns the jitted callable's result, or ``MISS`` / ``DECLINE`` as the guard decides."""

    __slots__ = (
        "entry",
        "guard",
        "computation",
        "epilogue",
        "epilogue_shortcut",
        "made_with_grad",
        "connection",
        "region_call",
        "grad_free_region",
        "grad_free_on_layout",
        "entry_layout",
        "call",
        "source",
    )

    def __init__(
        self,
        entry,
        guard: Guard,
        runtime: dict,
        args=(),
        kwargs=None,
        outputs=None,
        *,
        constant_values: bool = False,
        connection=None,
    ):
        if entry.backward_fn is not None and connection is None:
            # Its outputs would reach the caller without their autograd graph.
            raise Unsupported("an entry with a backward, and no autograd connection for its hits")
        self.entry = entry
        self.guard = guard
        # An entry made under autocast keeps Thunder's no_autocast layer, which switches CPU's and CUDA's autocast
        # off around the call (the trace has autocast's casts already; torch must not cast again inside). Any other
        # entry's guard establishes that autocast is off: the hit calls the bare function.
        keep_no_autocast = guard.autocast is not None
        self.computation = _undecorated(entry.computation_fn, keep_no_autocast)
        self.epilogue = _undecorated(entry.epilogue_fn, keep_no_autocast)
        self.epilogue_shortcut = _epilogue_shortcut(entry)
        # Thunder runs computation and epilogue under torch.no_grad(); the guard pins the grad mode, so the switch
        # is needed only for entries made with grad enabled.
        self.made_with_grad = guard.grad_enabled
        self.connection = connection  # autograd.AutogradConnection, for an entry with a backward
        # A computation that is one nvFuser region call: the hit calls the region's executor itself. Not for an entry
        # made under autocast, whose hit calls the computation through the no_autocast layer kept above.
        self.region_call = None
        # stack: from 06-nvfuser-regions
        if connection is None and self.epilogue_shortcut is not None and guard.autocast is None:
            from thunder.fastpath.nvfuser import single_region_call

            self.region_call = single_region_call(entry.computation_traces[-1], self.computation)
        # stack: end
        # NOTE: Grad mode on a hit: a region whose outputs for the prepared layout are new (the region tells)...
        self.grad_free_region = self.region_call is not None and self.made_with_grad and guard.no_grad_inputs
        # ...and any other computation, on the layout of the call (args, kwargs) that the guard was built from, where
        # that call made `outputs` all new.
        self.grad_free_on_layout = self.region_call is None and _grad_free_on_layout(
            self, entry, args, kwargs, outputs, constant_values
        )
        # The region's prepared layout when it is that of the call the entry's guard was built from (args, kwargs).
        self.entry_layout = entry_layout(self.region_call, guard, args, kwargs or {})
        # The generated function reaches the entry, not this object: this object holds the function, and a reference
        # back would make a cycle (see Publication).
        namespace = {
            **runtime,
            "__entry": entry,
            "__computation": self.computation,
            "__epilogue": self.epilogue,
            "__set_grad_enabled": _set_grad_enabled,
        }
        if guard.autocast is not None:
            namespace["__autocast_dtype"] = guard.autocast[1]
        if self.region_call is not None:
            namespace["__region"] = self.region_call.region
            namespace["__entry_layout"] = self.entry_layout
        if connection is not None:
            namespace["__connect"] = connection
        noting_layout = self.entry_layout is not None or self.grad_free_on_layout
        self.call, self.source = guard.compile_with("hit", self.hit_lines(), namespace, noting_layout=noting_layout)

    def hit_lines(self) -> list[str]:
        """What the hit function runs after its guard: the stages 2 to 5 of NOTE "The stages of a hit"."""
        lines = [
            "__cs.calls += 1",
            "__cs.cache_hits += 1",
            "__publication.served += 1",
            "if __publication.entry is not __entry: __publish(__entry)",
        ]
        if self.guard.autocast is not None:
            # What Thunder's populate_cache_info does on every call under autocast (and nothing undoes).
            lines.append(f"__autocast_push({self.guard.autocast[0]!r}, __autocast_dtype, True)")
        if self.connection is not None:
            return lines + self.training_lines()
        region, call = self.region_lines(), [f"return {self.result_of(f'__computation({self.guard.inputs})')}"]
        if not self.made_with_grad:
            return lines + region + call
        if self.grad_free_region:
            # The region's executor in grad mode as it is; the computation (another layout, or outputs that are
            # views) with the switch.
            return lines + region + _with_grad_off(call)
        if self.grad_free_on_layout:
            # The guard's layout: the outputs are new, whatever grad mode; any other layout with the switch.
            return lines + block("if __same_layout:", call) + _with_grad_off(call)
        return lines + _with_grad_off(region + call)

    def training_lines(self) -> list[str]:
        """An entry with a backward: the computation with grad mode off (as Thunder's decorator has it), the
        connection to autograd in the caller's grad mode, the epilogue with grad mode off."""
        computed = [f"__result = __computation({self.guard.inputs})"]
        lines = _with_grad_off(computed) if self.made_with_grad else computed
        lines.append("__outputs = __connect(__result)")
        call = [f"return {self.result_of('__outputs')}"]
        if self.epilogue_shortcut is None and self.made_with_grad:
            return lines + _with_grad_off(call)  # the epilogue runs, with grad mode off as Thunder's decorator has it
        return lines + call

    def result_of(self, outputs: str) -> str:
        """The jitted callable's result, as source, from the computation's outputs (the source ``outputs``): the
        epilogue's call, or what it would return where it only passes outputs through (``EpilogueShortcut``)."""
        if self.epilogue_shortcut is EpilogueShortcut.FIRST:
            return f"{outputs}[0]"
        if self.epilogue_shortcut is EpilogueShortcut.ALL:
            return f"tuple({outputs})"
        return f"__epilogue({self.guard.pro_to_epi}*{outputs})"

    def region_lines(self) -> list[str]:
        """The region call of a single-region computation: the region's executor with its layout check, as
        ``FusionRegion.__call__`` makes it; a layout that was not prepared goes on to the computation."""
        if self.region_call is None:
            return []
        names = self.guard.input_list
        args = "".join(names[i] + ", " for i in self.region_call.arg_positions)
        tensors = ", ".join(names[i] for i in self.region_call.tensor_positions)
        outputs = [f"__out[{i}]" for i in self.region_call.returned]
        if self.epilogue_shortcut is EpilogueShortcut.FIRST:
            result = outputs[0]
        else:
            result = "(" + "".join(o + ", " for o in outputs) + ")"
        ready = "__prepared.outputs_are_new and " if self.grad_free_region else ""
        layout_check = f"__prepared.layout.check({tensors})"
        if self.entry_layout is not None:
            # The guard found every tensor as in the call the region prepared this layout for: the check would pass.
            layout_check = f"(__same_layout and __prepared is __entry_layout or {layout_check})"
        return [
            "__prepared = __region.prepared",
            *block(
                f"if __prepared is not None and {ready}{layout_check}:",
                [f"__out = __prepared.execute(({args}))", f"return {result}"],
            ),
        ]


def entry_layout(region_call, guard: Guard, args, kwargs):
    """The region's prepared layout (``FusionRegion.prepared``), when its layout check passes on the region's tensors
    in the call that the guard was built from and the guard checks each of those tensors; else None.

    While the guard then finds every tensor with that call's sizes and strides (``__same_layout``; all else that
    TensorGuards compares is pinned as well), the region's check would pass, and the hit skips it. While the region
    holds another layout, ``prepared`` is another tuple and the hit lets the region's check decide; the region takes
    up the same tuple again when the layout comes back (``FusionRegion.first_prepared``) if it was its first."""
    if region_call is None or guard.steps_noting_layout is None or not region_call.tensor_positions:
        return None
    names = [guard.input_list[i] for i in region_call.tensor_positions]
    prepared = region_call.region.prepared
    if prepared is None or any(n not in guard.tensor_names for n in names):
        return None
    checked = guard.check(args, kwargs)  # compiles the guard alone: only where the answer can still be yes
    if not isinstance(checked, tuple):
        return None
    tensors = [checked[0][i] for i in region_call.tensor_positions]
    return prepared if prepared.layout.check(*tensors) else None


def _grad_free_on_layout(hit, entry, args, kwargs, outputs, constant_values) -> bool:
    """Whether grad mode cannot change what the entry's computation returns while its tensor inputs have the sizes and
    strides of the call (args, kwargs) that gave ``outputs`` (NOTE "Grad mode on a hit"): the entry was made for grad
    mode on, no input requires grad (the guard pins it), and that call's outputs were all new tensors, neither views
    nor inputs. Which outputs are views follows from the ops, their non-tensor arguments (pinned by value only under
    "constant values") and the tensors' sizes and strides: the hit function skips the switch only where the guard
    finds that call's sizes and strides."""
    trace = entry.computation_traces[-1]
    return (
        constant_values
        and outputs is not None
        and hit.made_with_grad
        and hit.guard.no_grad_inputs
        and hit.connection is None
        and hit.epilogue_shortcut is not None  # the result is the computation's outputs, with nothing made after them
        and hit.guard.steps_noting_layout is not None
        and all(_executor_name(b) in _GRAD_NEUTRAL_EXECUTORS for b in trace.bound_symbols)
        # grad mode switches inside the function: Thunder applies them at trace time; decline any left in the trace
        and not any(OpTags.CTX_MANAGER_ENTER_EXIT_OP in (b.sym.tags or ()) for b in trace.bound_symbols)
        and outputs_are_new(tree_leaves(outputs), tree_leaves((args, kwargs)))
    )


def _executor_name(bsym):
    return getattr(getattr(bsym.sym, "executor", None), "name", None)


def _with_grad_off(body: list[str]) -> list[str]:
    """``body`` with grad mode switched off around it, as Thunder's ``torch.no_grad()`` decorator does."""
    return ["__set_grad_enabled(False)", *block("try:", body), *block("finally:", ["__set_grad_enabled(True)"])]


def _epilogue_shortcut(entry) -> EpilogueShortcut | None:
    """How the epilogue's result follows from the computation's outputs when the epilogue only passes them through
    (the common case); ``None`` when the epilogue must run."""
    prologue_return = entry.prologue_traces[-1].bound_symbols[-1]
    epilogue = entry.epilogue_traces[-1]
    if prologue_return.sym.id != PrimIDs.RETURN or prologue_return.args[0][1] != ():
        return None  # the prologue passes values to the epilogue
    *unpacks, ret = epilogue.bound_symbols
    if ret.sym.id != PrimIDs.RETURN or any(b.sym.id != PrimIDs.UNPACK_TRIVIAL for b in unpacks):
        return None
    params, value = tuple(epilogue.args), ret.args[0]
    if len(params) == 1 and value is params[0]:
        return EpilogueShortcut.FIRST
    if isinstance(value, tuple) and len(value) == len(params) and all(map(operator.is_, value, params)):
        return EpilogueShortcut.ALL
    return None


def _undecorated(fn, keep_no_autocast: bool = False):
    # Thunder decorates generated callables with @torch.no_grad() and @no_autocast. The hit path handles grad mode
    # itself; it drops the no_autocast layer too unless asked to keep it. Any other decorator keeps Thunder's path.
    chain = [fn]
    while hasattr(chain[-1], "__wrapped__"):
        chain.append(chain[-1].__wrapped__)
    wrappers = [f.__code__.co_name for f in chain[:-1]]
    if wrappers != ["decorate_context", "no_autocast_fn"]:
        raise Unsupported(f"decorators {wrappers} on {fn.__name__}")
    return chain[1] if keep_no_autocast else chain[-1]

"""The cache-hit path of ``thunder.jit``.

Stands for changes to ``thunder/__init__.py``: the callable that ``jit`` returns (``fn_`` with its
``update_call_statistics``, ``get_computation_and_inputs`` with ``populate_cache_info``, the cache-info context
variable, ``compile_data_and_stats`` and the host/prologue timers, ``maybe_connect_to_autograd``,
``call_epilogue`` and the closing ``set_grad_enabled``).

Each cache entry gets one generated function (``CacheHit.call``): its guard (see ``guard.py``) followed by what
a hit needs and nothing else: the counters, the computation (without upstream's ``torch.no_grad()`` decorator: grad
mode switched off around it only when it is on; for an entry made under autocast, through upstream's ``no_autocast``
decorator and after upstream's push onto the compile data's autocast stack; for any other, without either), the
autograd connection when the entry has a backward (``autograd.py``), the epilogue unless it only passes outputs
through. A computation that is one nvFuser region call is not called: the hit calls the region's
executor itself, in grad mode as it is where that cannot change the outputs (``nvfuser.single_region_call``), and
without the region's layout check while the guard finds the sizes and strides of the call that the region's
current layout was prepared for (``_entry_layout``). Any other computation made for grad mode on, with no input
requiring grad, also runs in grad mode as it is while the guard finds the sizes and strides of the call that the
entry was guarded after, if that call's outputs were all new tensors (``_grad_free_on_layout``).
The fast callable tries these functions in upstream's order, newest entry first, except those whose guards require
another shape of the tensor passed at one argument position: they would miss (``calls_by_shape``). Anything else
(a miss, an entry that has no guard, a guard that declines) goes through upstream's own callable unchanged,
after which the entry that it used gets its function, also when the call raised (but not when the call failed that
entry's own prologue checks, which upstream's first call of an entry can: ``build_guard``). A call made while Thunder
traces another callable goes to upstream's callable at once, as upstream's ``fn_`` does under ``is_tracing()``.

Timing fields of ``compile_stats`` (``last_trace_host_start`` and the like) describe the last call that went
through upstream's path; hits do not take timestamps.
"""

from __future__ import annotations

import functools
import operator
import warnings
import weakref

import torch
from torch.utils._pytree import tree_leaves

from thunder.core.options import CACHE_OPTIONS
from thunder.core.prims import OpTags, PrimIDs
from thunder.core.trace import _tracectx
from thunder.fastpath.autograd import connect_to_autograd
from thunder.fastpath.guard import DECLINE, MISS, Guard, Unsupported, build_guard
from thunder.fastpath.nvfuser import outputs_are_new, single_region_call

_FAST_CACHE_OPTIONS = (CACHE_OPTIONS.CONSTANT_VALUES, CACHE_OPTIONS.SYMBOLIC_VALUES)
# Executors whose calls grad mode does not change when no input requires grad (None: the trace's own Python lines).
# Others keep the switch, unexamined: custom executors may read grad mode (autograd.Function-based ones do), CUDA
# graphs replay what was captured, torch.compile keeps guards on global state.
_GRAD_NEUTRAL_EXECUTORS = (None, "torch", "python", "nvfuser")
_set_grad_enabled = torch._C._set_grad_enabled
# get_trace(None): the trace being built, None outside tracing; thunder.core.trace.is_tracing() asks the same
# through two Python frames.
get_trace = _tracectx.get


class GuardBuildWarning(UserWarning):
    """A guard could not be built for a cache entry because of an unexpected error (a bug in the guard generator, not
    a prologue it does not translate): that entry keeps upstream's path. This repository's tests and CI turn it into
    an error."""


class CacheHit:
    """One guarded cache entry and ``call``, the function generated for it: the entry's guard followed by what a hit
    runs (counters, the computation with grad mode as upstream has it, the autograd connection or the epilogue).
    ``call(args, kwargs)`` returns the jitted callable's result, or ``MISS`` / ``DECLINE`` as the guard decides."""

    __slots__ = (
        "entry",
        "guard",
        "computation",
        "epilogue",
        "finish",
        "grad_off",
        "backward_fn",
        "region_call",
        "grad_free_region",
        "grad_free_on_layout",
        "entry_layout",
        "call",
        "source",
    )

    def __init__(self, entry, guard: Guard, runtime: dict, args=(), kwargs=None, outputs=None, constant_values=False):
        self.entry = entry
        self.guard = guard
        # An entry made under autocast keeps upstream's no_autocast layer, which switches CPU's and CUDA's autocast
        # off around the call (the trace has autocast's casts already; torch must not cast again inside). Any other
        # entry's guard establishes that autocast is off: the hit calls the bare function.
        keep_no_autocast = guard.autocast is not None
        self.computation = _undecorated(entry.computation_fn, keep_no_autocast)
        self.epilogue = _undecorated(entry.epilogue_fn, keep_no_autocast)
        self.finish = _epilogue_shortcut(entry)
        # Upstream runs computation and epilogue under torch.no_grad(); the guard pins the grad mode, so the
        # switch is needed only for entries made with grad enabled.
        self.grad_off = guard.grad_enabled
        self.backward_fn = entry.backward_fn
        # A computation that is one nvFuser region call: the hit calls the region's executor itself. Not for an entry
        # made under autocast, whose hit calls the computation through the no_autocast layer kept above.
        self.region_call = None
        if self.backward_fn is None and self.finish is not None and guard.autocast is None:
            self.region_call = single_region_call(entry.computation_traces[-1], self.computation)
        # Grad mode cannot change what such a region returns when no input requires grad and no output is a view or
        # an input (nvFuser then made each output, with no autograd history in either mode; the region tells per
        # layout): the hit then leaves grad mode as it is.
        self.grad_free_region = self.region_call is not None and self.grad_off and guard.no_grad_inputs
        # Any other computation: grad mode as it is on the layout of the call the guard was built from, where that
        # call (args, kwargs) made `outputs` all new.
        self.grad_free_on_layout = self.region_call is None and _grad_free_on_layout(
            self, entry, args, kwargs, outputs, constant_values
        )
        # The region's prepared layout when it is that of the call the entry's guard was built from (args, kwargs).
        self.entry_layout = _entry_layout(self.region_call, guard, args, kwargs or {})
        # The generated function reaches the entry, not this object: this object holds the function, and a reference
        # back would make a cycle (see _Publication).
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
        noting_layout = self.entry_layout is not None or self.grad_free_on_layout
        self.call, self.source = guard.compile_with("hit", self._on_pass(), namespace, noting_layout=noting_layout)

    def _on_pass(self) -> list[str]:
        lines = [
            "__cs.calls += 1",
            "__cs.cache_hits += 1",
            "if __publication.entry is not __entry: __publish(__entry)",
        ]
        if self.guard.autocast is not None:
            # What upstream's populate_cache_info does on every call under autocast (and nothing undoes).
            lines.append(f"__autocast_push({self.guard.autocast[0]!r}, __autocast_dtype, True)")
        inputs, pro_to_epi = self.guard.inputs, self.guard.pro_to_epi
        if self.backward_fn is not None:
            parts = f"__entry, __computation, __epilogue, {self.grad_off}"
            return lines + [f"return __call_with_backward({parts}, ({inputs}), ({pro_to_epi}))"]
        computed = f"__computation({inputs})"
        result = {
            "first": f"{computed}[0]",
            "all": f"tuple({computed})",
            None: f"__epilogue({pro_to_epi}*{computed})",
        }[self.finish]
        region, call = self._region_lines(), [f"return {result}"]
        if not self.grad_off:
            return lines + region + call
        if self.grad_free_region:
            # The region's executor in grad mode as it is; the computation (another layout, or outputs that are
            # views) with the switch.
            return lines + region + _with_grad_off(call)
        if self.grad_free_on_layout:
            # The guard's layout: the outputs are new, whatever grad mode; any other layout with the switch.
            return lines + ["if __same_layout:", *(f"    {line}" for line in call)] + _with_grad_off(call)
        return lines + _with_grad_off(region + call)

    def _region_lines(self) -> list[str]:
        """The region call of a single-region computation: the region's executor with its layout check, as
        ``FusionRegion.__call__`` makes it; a layout that was not prepared goes on to the computation."""
        if self.region_call is None:
            return []
        names = self.guard.input_list
        args = "".join(names[i] + ", " for i in self.region_call.arg_positions)
        tensors = ", ".join(names[i] for i in self.region_call.tensor_positions)
        outputs = [f"__out[{i}]" for i in self.region_call.returned]
        result = outputs[0] if self.finish == "first" else "(" + "".join(o + ", " for o in outputs) + ")"
        ready = "__prepared[2] and " if self.grad_free_region else ""
        layout_check = f"__prepared[0].check({tensors})"
        if self.entry_layout is not None:
            # The guard found every tensor as in the call the region prepared this layout for: the check would pass.
            layout_check = f"(__same_layout and __prepared is __entry_layout or {layout_check})"
        return [
            "__prepared = __region.prepared",
            f"if __prepared is not None and {ready}{layout_check}:",
            f"    __out = __prepared[1](({args}))",
            f"    return {result}",
        ]


def _entry_layout(region_call, guard: Guard, args, kwargs):
    """The region's prepared layout (``FusionRegion.prepared``), when its layout check passes on the region's tensors
    in the call that the guard was built from and the guard checks each of those tensors; else None.

    While the guard then finds every tensor with that call's sizes and strides (``__same_layout``; all else that
    TensorGuards compares is pinned as well), the region's check would pass, and the hit skips it. While the region
    holds another layout, ``prepared`` is another tuple and the hit lets the region's check decide; the region takes
    up the same tuple again when the layout comes back (``FusionRegion.first_prepared``) if it was its first."""
    if region_call is None or guard.checks_noting_layout is None or not region_call.tensor_positions:
        return None
    names = [guard.input_list[i] for i in region_call.tensor_positions]
    prepared = region_call.region.prepared
    if prepared is None or any(n not in guard.tensor_names for n in names):
        return None
    checked = guard.check(args, kwargs)  # compiles the guard alone: only where the answer can still be yes
    if not isinstance(checked, tuple):
        return None
    tensors = [checked[0][i] for i in region_call.tensor_positions]
    return prepared if prepared[0].check(*tensors) else None


def _grad_free_on_layout(hit, entry, args, kwargs, outputs, constant_values) -> bool:
    """Whether grad mode cannot change what the entry's computation returns while its tensor inputs have the sizes and
    strides of the call (args, kwargs) that gave ``outputs``: the entry was made for grad mode on (upstream switches it
    off around the computation), no input requires grad (the guard pins it), and that call's outputs were all new
    tensors, neither views nor inputs. Such outputs carry no autograd history in either mode; a view would record
    the mode it was made in (its creation meta). Which outputs are views follows from the ops, their non-tensor
    arguments (pinned by value only under "constant values") and the tensors' sizes and strides (a reshape views or
    copies by strides): the hit function skips the switch only where the guard finds that call's sizes and strides."""
    trace = entry.computation_traces[-1]
    return (
        constant_values
        and outputs is not None
        and hit.grad_off
        and hit.guard.no_grad_inputs
        and hit.backward_fn is None
        and hit.finish is not None  # the result is the computation's outputs, with nothing made after them
        and hit.guard.checks_noting_layout is not None
        and all(_executor_name(b) in _GRAD_NEUTRAL_EXECUTORS for b in trace.bound_symbols)
        # grad mode switches inside the function: Thunder applies them at trace time; decline any left in the trace
        and not any(OpTags.CTX_MANAGER_ENTER_EXIT_OP in (b.sym.tags or ()) for b in trace.bound_symbols)
        and outputs_are_new(tree_leaves(outputs), tree_leaves((args, kwargs)))
    )


def _executor_name(bsym):
    return getattr(getattr(bsym.sym, "executor", None), "name", None)


def _with_grad_off(body: list[str]) -> list[str]:
    """``body`` with grad mode switched off around it, as upstream's ``torch.no_grad()`` decorator does."""
    indented = [f"    {line}" for line in body]
    return ["__set_grad_enabled(False)", "try:", *indented, "finally:", "    __set_grad_enabled(True)"]


def _epilogue_shortcut(entry):
    """How the epilogue's result follows from the computation's output when the epilogue only passes outputs
    through (the common case): ``"first"`` (its first element), ``"all"`` (all of them, as a tuple); ``None``
    when the epilogue must run."""
    prologue_return = entry.prologue_traces[-1].bound_symbols[-1]
    epilogue = entry.epilogue_traces[-1]
    if prologue_return.sym.id != PrimIDs.RETURN or prologue_return.args[0][1] != ():
        return None  # the prologue passes values to the epilogue
    *unpacks, ret = epilogue.bound_symbols
    if ret.sym.id != PrimIDs.RETURN or any(b.sym.id != PrimIDs.UNPACK_TRIVIAL for b in unpacks):
        return None
    params, value = tuple(epilogue.args), ret.args[0]
    if len(params) == 1 and value is params[0]:
        return "first"
    if isinstance(value, tuple) and len(value) == len(params) and all(map(operator.is_, value, params)):
        return "all"
    return None


def _undecorated(fn, keep_no_autocast: bool = False):
    # Thunder decorates generated callables with @torch.no_grad() and @no_autocast. The hit path handles grad mode
    # itself; it drops the no_autocast layer too unless asked to keep it. Any other decorator keeps upstream's path.
    chain = [fn]
    while hasattr(chain[-1], "__wrapped__"):
        chain.append(chain[-1].__wrapped__)
    wrappers = [f.__code__.co_name for f in chain[:-1]]
    if wrappers != ["decorate_context", "no_autocast_fn"]:
        raise Unsupported(f"decorators {wrappers} on {fn.__name__}")
    return chain[1] if keep_no_autocast else chain[-1]


def calls_by_shape(hits):
    """The hit functions that a call must try, by the shape of the tensor that it passes at one argument position.

    Under "constant values" each input shape gets its own cache entry, and a hit of an older entry first fails the
    guard of every newer one. A guard that requires another shape of a tensor argument (``Guard.arg_shapes``)
    fails for such a call, as the entry's prologue does (it checks every dimension exactly), so the call can skip
    it. The position chosen is the one (an index into args, or a keyword) where the guards require the most
    distinct shapes; on a tie, the first found (newest entry first, each in its prologue's order).
    Returns the index, ``(position, by_shape, unshaped)``: ``by_shape[shape]`` the functions of the entries that
    require ``shape`` or no particular shape there, newest first as upstream tries them; ``unshaped`` those of the
    latter, for shapes that no entry requires. None (try all) where no position has two shapes or more: then there
    is nothing that an older entry's hit could skip.
    """
    shapes_at: dict = {}  # position -> the shapes required there, in order of appearance
    for hit in hits:
        for position, shape in hit.guard.arg_shapes.items():
            shapes_at.setdefault(position, {})[shape] = None
    position = max(shapes_at, key=lambda p: len(shapes_at[p]), default=None)
    if position is None or len(shapes_at[position]) < 2:
        return None
    required = [hit.guard.arg_shapes.get(position) for hit in hits]
    unshaped = tuple(hit.call for hit, shape in zip(hits, required, strict=False) if shape is None)
    by_shape = {
        shape: tuple(hit.call for hit, req in zip(hits, required, strict=False) if req is None or req == shape)
        for shape in shapes_at[position]
    }
    return position, by_shape, unshaped


def entry_used_last(cs):
    """The cache entry that the last call through upstream's path used (the one whose prologue traces that call
    published in ``cs``), or None."""
    return next((e for e in cs.interpreter_cache if e.prologue_traces is cs.last_prologue_traces), None)


class _Publication:
    """The cache entry whose traces the fast path last published in the compile stats (None after a call through
    upstream's path). The generated hit functions read it and must not reach the ``_State`` or a ``CacheHit``, which
    hold them: such a reference cycle would keep the compile stats, and through them the jitted function or module,
    alive until Python's cycle collector runs. Upstream's callables make none (its test_jit_nn_module_cycle_leak)."""

    __slots__ = ("entry",)

    def __init__(self):
        self.entry = None


class _State:
    """The guarded cache entries, newest first, and the bookkeeping that keeps them in step with upstream."""

    __slots__ = ("hits", "calls", "shape_index", "cache", "n_entries", "publication", "by_entry", "unsupported")

    def __init__(self):
        self.hits: tuple[CacheHit, ...] = ()
        self.calls: tuple = ()  # the hits' generated functions, in the same order
        # The same, narrowed by the shape of the tensor passed at one position: (position, by_shape, unshaped) or
        # None (see calls_by_shape). One attribute, so that a thread never reads one index's position with
        # another's buckets.
        self.shape_index: tuple | None = None
        self.cache = None
        self.n_entries = -1
        self.publication = _Publication()
        self.by_entry: dict = {}  # id(entry) -> (entry, CacheHit or None when unsupported)
        self.unsupported: list[str] = []  # why entries kept upstream's path

    @property
    def published(self):
        """The entry whose traces the fast path published last, None after a call through upstream's path: whether
        the last call was served by a generated hit function."""
        return self.publication.entry


def make_fast(upstream_fn, cd, cs, *, thunder_module=None):
    """Wraps the ``fn_`` that upstream's ``jit`` made into the fast callable; ``None`` if the options exclude it."""
    if cd.cache_option not in _FAST_CACHE_OPTIONS:
        return None
    state = _State()
    options = cd.compile_options
    is_differentiable_outputs = options.get("is_differentiable_outputs", None)
    disable_split_autograd = options.get("thunderfx_disable_split_autograd", False)
    user_fn = cd.fn
    # Weak: the ThunderModule holds this callable, and a strong reference back would keep both alive.
    thunder_module_ref = weakref.ref(thunder_module) if thunder_module is not None else lambda: None

    publication = state.publication

    def publish(entry):
        # The statistics an upstream hit writes; they only change when the entry hit changes.
        cs.last_traces = entry.computation_traces
        cs.last_prologue_traces = entry.prologue_traces
        cs.last_prologue = entry.prologue_fn
        cs.last_computation = entry.computation_fn
        cs.last_interpreted_instructions = None
        cs.last_interpreter_log = None
        cs.last_prologue_transformation_start = cs.last_prologue_transformation_stop = 0
        cs.last_computation_transformation_start = cs.last_computation_transformation_stop = 0
        publication.entry = entry

    def connect(entry, result):
        data_for_autograd, (saved_tensors, saved_other) = result
        connect_to_autograd(
            backward_fn=entry.backward_fn,
            flat_args=data_for_autograd["flat_args"],
            flat_output=data_for_autograd["flat_output"],
            saved_tensors=saved_tensors,
            saved_other=saved_other,
            return_none_instead_of_grads=entry.return_none_instead_of_grads,
            disable_split_autograd=disable_split_autograd,
            is_differentiable_outputs=is_differentiable_outputs,
        )
        return data_for_autograd["output"]

    def upstream_call(args, kwargs):
        publication.entry = None
        try:
            result = upstream_fn(*args, **kwargs)
        except Exception:
            # The call may have made an entry whose computation then raised (an index out of range, out of memory):
            # upstream keeps it. Without its guard, every call would go through upstream's path until one call of
            # that entry succeeded, hits of the older entries too (none may be tried before it).
            try:
                _guard_used_entry(args, kwargs, None)
            except Exception:
                pass  # the caller gets upstream's exception, not ours; the next call goes through upstream's path
            raise
        _guard_used_entry(args, kwargs, result)
        return result

    def _guard_used_entry(args, kwargs, result):
        cache = cs.interpreter_cache
        used = entry_used_last(cs)
        if used is not None and state.by_entry.get(id(used), (None,))[0] is not used:
            state.by_entry[id(used)] = (used, _make_hit(used, args, kwargs, result))
        hits = []
        for entry in reversed(cache):
            known, hit = state.by_entry.get(id(entry), (None, None))
            if known is not entry or hit is None:
                break  # upstream would try this entry before older ones: only upstream can go on
            hits.append(hit)
        hits = tuple(hits)
        if hits != state.hits:
            state.calls = tuple(hit.call for hit in hits)
            state.shape_index = calls_by_shape(hits)
        state.hits, state.cache, state.n_entries = hits, cache, len(cache)
        live = {id(e) for e in cache}  # forget entries that left the cache
        state.by_entry = {k: v for k, v in state.by_entry.items() if k in live}

    def _make_hit(entry, args, kwargs, result):
        try:
            guard = build_guard(
                entry.prologue_traces[-1],
                args,
                kwargs,
                thunder_module=thunder_module_ref(),
                compile_data=cd,
                data_parallel=bool(getattr(user_fn, "use_ddp", False) or getattr(user_fn, "use_fsdp", False)),
            )
            constant_values = cd.cache_option is CACHE_OPTIONS.CONSTANT_VALUES
            return CacheHit(entry, guard, runtime, args, kwargs, outputs=result, constant_values=constant_values)
        except Unsupported as e:
            state.unsupported.append(str(e))
            return None
        except Exception as e:
            # Not the caller's problem: the call went through upstream's path, and the entry stays there.
            reason = f"{type(e).__name__} while building the guard: {e}"
            state.unsupported.append(reason)
            warnings.warn(
                f"thunder.fastpath: {reason}; this cache entry keeps upstream's path", GuardBuildWarning, stacklevel=2
            )
            return None

    def call_with_backward(entry, computation, epilogue, grad_off, inps, pro_to_epi):
        # computation and epilogue: the entry's, undecorated (CacheHit)
        if grad_off:
            _set_grad_enabled(False)
            try:
                result = computation(*inps)
            finally:
                _set_grad_enabled(True)
            result = connect(entry, result)
            _set_grad_enabled(False)
            try:
                return epilogue(*pro_to_epi, *result)
            finally:
                _set_grad_enabled(True)
        return epilogue(*pro_to_epi, *connect(entry, computation(*inps)))

    # What the generated hit functions reach besides their entry's own callables; none of it refers to the state
    # (see _Publication).
    runtime = {
        "__cs": cs,
        "__publication": publication,
        "__publish": publish,
        "__call_with_backward": call_with_backward,
        "__autocast_push": cd.autocast_stack.push,  # holds the stack, not the compile data
    }

    def dispatch(args, kwargs):
        # One call of the jitted callable: the guarded entries in upstream's order (less those that require another
        # shape of the tensor passed at the index's position), else upstream's path.
        cache = cs.interpreter_cache
        if cache is state.cache and len(cache) == state.n_entries:
            calls = state.calls
            index = state.shape_index
            if index is not None:
                position, by_shape, unshaped = index
                if type(position) is str:
                    x = kwargs.get(position)
                else:
                    x = args[position] if position < len(args) else None
                if isinstance(x, torch.Tensor):
                    try:
                        calls = by_shape.get(x.shape, unshaped)
                    except Exception:  # no sizes (a strided nested tensor) or sizes that do not hash: try them all
                        pass
            for call in calls:
                result = call(args, kwargs)
                if result is MISS:
                    continue
                if result is DECLINE:
                    break
                return result
        return upstream_call(args, kwargs)

    def fast_fn(*args, **kwargs):
        if get_trace(None) is not None:
            # Called while Thunder traces a caller: upstream's callable runs the function inside that trace. The
            # dispatcher must not run there: the caller's prologue would come to check this callable's state.
            return upstream_fn(*args, **kwargs)
        return dispatch(args, kwargs)

    functools.update_wrapper(fast_fn, upstream_fn)
    fast_fn._lc_dispatch = dispatch  # what FastThunderModule.__call__ calls, with args and kwargs as it got them
    fast_fn._lc_fastpath_state = state
    fast_fn._lc_upstream = upstream_fn
    return fast_fn

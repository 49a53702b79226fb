"""The cache-hit path of ``thunder.jit``.

Stands for changes to ``thunder/__init__.py``: the callable that ``jit`` returns (``fn_`` with its
``update_call_statistics``, ``get_computation_and_inputs`` with ``populate_cache_info``, the cache-info context
variable, ``compile_data_and_stats`` and the host/prologue timers, ``maybe_connect_to_autograd``, ``call_epilogue``
and the closing ``set_grad_enabled``).

# NOTE [The stages of a hit]
Upstream's ``fn_`` runs, per call: the cache lookup (each entry's prologue, newest first), the computation under
``torch.no_grad()``, ``maybe_connect_to_autograd`` and ``call_epilogue``. Each guarded cache entry gets one
generated function (``CacheHit.call``) that runs the same stages and nothing else:

1. guard: the entry's checks (``guard.py``), returning ``MISS`` or ``DECLINE`` where the prologue would fail or where
   the guard cannot tell;
2. statistics: the counters and, when the entry hit changes, the traces that upstream publishes in the compile stats;
3. computation: without upstream's ``torch.no_grad()`` decorator, grad mode switched off around it only where it is
   on and that can change the outputs (NOTE [Grad mode on a hit]); an entry made under autocast keeps upstream's
   ``no_autocast`` layer and pushes onto the compile data's autocast stack as upstream does on every such call. A
   computation that is one nvFuser region call is not called: the hit calls the region's executor itself
   (``nvfuser.single_region_call``), without the region's layout check while the guard finds the sizes and strides of
   the call that the region's current layout was prepared for (``entry_layout``);
4. autograd connection, for entries with a backward (``autograd.AutogradConnection``);
5. epilogue, unless it only passes outputs through (``EpilogueShortcut``).

# NOTE [Grad mode on a hit]
Upstream runs every computation with grad mode off. A hit leaves grad mode as it is where that cannot change the
outputs: no input requires grad (the guard pins it), the computation runs on executors that grad mode does not change
(``_GRAD_NEUTRAL_EXECUTORS``), and its outputs are new tensors (a view records the grad mode it was made in). Which
outputs are views follows from the inputs' sizes and strides (a reshape views or copies by strides), so this holds
only while the guard finds those of the call after which the entry got its guard (``grad_free_on_layout``), or, for a
single nvFuser region, while the region's prepared layout says its outputs were new (``grad_free_region``).

The fast callable tries the hit functions in upstream's order, newest entry first, except those whose guards require
another shape of the tensor passed at one argument position: they would miss (``calls_by_shape``). Anything else (a
miss, an entry that has no guard, a guard that declines) goes through upstream's own callable unchanged, after which
the entry that it used gets its function, also when the call raised (but not when the call failed that entry's own
prologue checks, which upstream's first call of an entry can: ``build_guard``). A call made while Thunder traces
another callable goes to upstream's callable at once, as upstream's ``fn_`` does under ``is_tracing()``.

Timing fields of ``compile_stats`` (``last_trace_host_start`` and the like) describe the last call that went through
upstream's path; hits do not take timestamps.
"""

from __future__ import annotations

import enum
import functools
import inspect
import operator
import warnings
import weakref
from typing import NamedTuple

import torch
from torch.utils._pytree import tree_leaves

from thunder.core.options import CACHE_OPTIONS
from thunder.core.prims import OpTags, PrimIDs
from thunder.core.trace import _tracectx
from thunder.fastpath.autograd import AutogradConnection
from thunder.fastpath.explain import MissRecorder
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


class EpilogueShortcut(enum.Enum):
    """How the epilogue's result follows from the computation's outputs when it only passes them through."""

    FIRST = "first"  # the first output
    ALL = "all"  # all of them, as a tuple


class CacheHit:
    """One guarded cache entry and ``call``, the function generated for it (NOTE [The stages of a hit]).
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
        connection: AutogradConnection | None = None,
    ):
        self.entry = entry
        self.guard = guard
        # An entry made under autocast keeps upstream's no_autocast layer, which switches CPU's and CUDA's autocast
        # off around the call (the trace has autocast's casts already; torch must not cast again inside). Any other
        # entry's guard establishes that autocast is off: the hit calls the bare function.
        keep_no_autocast = guard.autocast is not None
        self.computation = _undecorated(entry.computation_fn, keep_no_autocast)
        self.epilogue = _undecorated(entry.epilogue_fn, keep_no_autocast)
        self.epilogue_shortcut = _epilogue_shortcut(entry)
        # Upstream runs computation and epilogue under torch.no_grad(); the guard pins the grad mode, so the switch
        # is needed only for entries made with grad enabled.
        self.made_with_grad = guard.grad_enabled
        self.connection = connection  # the autograd connection, for an entry with a backward
        # A computation that is one nvFuser region call: the hit calls the region's executor itself. Not for an entry
        # made under autocast, whose hit calls the computation through the no_autocast layer kept above.
        self.region_call = None
        if connection is None and self.epilogue_shortcut is not None and guard.autocast is None:
            self.region_call = single_region_call(entry.computation_traces[-1], self.computation)
        # NOTE [Grad mode on a hit]: a region whose outputs for the prepared layout are new (the region tells)...
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
        """What the hit function runs after its guard: the stages 2 to 5 of NOTE [The stages of a hit]."""
        lines = [
            "__cs.calls += 1",
            "__cs.cache_hits += 1",
            "if __publication.entry is not __entry: __publish(__entry)",
        ]
        if self.guard.autocast is not None:
            # What upstream's populate_cache_info does on every call under autocast (and nothing undoes).
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
            return lines + ["if __same_layout:", *(f"    {line}" for line in call)] + _with_grad_off(call)
        return lines + _with_grad_off(region + call)

    def training_lines(self) -> list[str]:
        """An entry with a backward: the computation with grad mode off (as upstream's decorator has it), the
        connection to autograd in the caller's grad mode, the epilogue with grad mode off."""
        computed = [f"__result = __computation({self.guard.inputs})"]
        lines = _with_grad_off(computed) if self.made_with_grad else computed
        lines.append("__outputs = __connect(__result)")
        call = [f"return {self.result_of('__outputs')}"]
        if self.epilogue_shortcut is None and self.made_with_grad:
            return lines + _with_grad_off(call)  # the epilogue runs, with grad mode off as upstream's decorator has it
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
            f"if __prepared is not None and {ready}{layout_check}:",
            f"    __out = __prepared.execute(({args}))",
            f"    return {result}",
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
    strides of the call (args, kwargs) that gave ``outputs`` (NOTE [Grad mode on a hit]): the entry was made for grad
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
    """``body`` with grad mode switched off around it, as upstream's ``torch.no_grad()`` decorator does."""
    indented = [f"    {line}" for line in body]
    return ["__set_grad_enabled(False)", "try:", *indented, "finally:", "    __set_grad_enabled(True)"]


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
    # itself; it drops the no_autocast layer too unless asked to keep it. Any other decorator keeps upstream's path.
    chain = [fn]
    while hasattr(chain[-1], "__wrapped__"):
        chain.append(chain[-1].__wrapped__)
    wrappers = [f.__code__.co_name for f in chain[:-1]]
    if wrappers != ["decorate_context", "no_autocast_fn"]:
        raise Unsupported(f"decorators {wrappers} on {fn.__name__}")
    return chain[1] if keep_no_autocast else chain[-1]


class ShapeIndex(NamedTuple):
    """The hit functions that a call must try, by the shape of the tensor that it passes at one argument position
    (``calls_by_shape``)."""

    position: int | str  # an index into args, or a keyword
    by_shape: dict  # shape -> the functions of the entries that require it or no particular shape there
    unshaped: tuple  # the functions of the entries that require no particular shape there


def calls_by_shape(hits) -> ShapeIndex | None:
    """The ``ShapeIndex`` of the guarded entries ``hits`` (newest first), or None (try all).

    Under "constant values" each input shape gets its own cache entry, and a hit of an older entry first fails the
    guard of every newer one. A guard that requires another shape of a tensor argument (``Guard.arg_shapes``) fails
    for such a call, as the entry's prologue does (it checks every dimension exactly), so the call can skip it. The
    position chosen is the one (an index into args, or a keyword) where the guards require the most distinct shapes;
    on a tie, the first found (newest entry first, each in its prologue's order). The functions keep upstream's order.
    None where no position has two shapes or more: then there is nothing that an older entry's hit could skip.
    """
    shapes_at: dict = {}  # position -> the shapes required there, in order of appearance
    for hit in hits:
        for position, shape in hit.guard.arg_shapes.items():
            shapes_at.setdefault(position, {})[shape] = None
    position = max(shapes_at, key=lambda p: len(shapes_at[p]), default=None)
    if position is None or len(shapes_at[position]) < 2:
        return None
    required = [hit.guard.arg_shapes.get(position) for hit in hits]
    unshaped = tuple(hit.call for hit, shape in zip(hits, required, strict=True) if shape is None)
    by_shape = {
        shape: tuple(hit.call for hit, req in zip(hits, required, strict=True) if req is None or req == shape)
        for shape in shapes_at[position]
    }
    return ShapeIndex(position, by_shape, unshaped)


def entry_used_last(cs):
    """The cache entry that the last call through upstream's path used (the one whose prologue traces that call
    published in ``cs``), or None."""
    return next((e for e in cs.interpreter_cache if e.prologue_traces is cs.last_prologue_traces), None)


class Publication:
    """The cache entry whose traces the fast path last published in the compile stats (None after a call through
    upstream's path), and ``publish``, which writes what an upstream hit of an entry writes there.

    The generated hit functions reach this object; they must not reach the ``FastCallableState`` or a ``CacheHit``,
    which hold them: such a reference cycle would keep the compile stats, and through them the jitted function or
    module, alive until Python's cycle collector runs. Upstream's callables make none (its
    test_jit_nn_module_cycle_leak)."""

    __slots__ = ("entry", "cs")

    def __init__(self, cs):
        self.entry = None
        self.cs = cs

    def publish(self, entry) -> None:
        # The statistics an upstream hit writes; they only change when the entry hit changes.
        cs = self.cs
        cs.last_traces = entry.computation_traces
        cs.last_prologue_traces = entry.prologue_traces
        cs.last_prologue = entry.prologue_fn
        cs.last_computation = entry.computation_fn
        cs.last_interpreted_instructions = None
        cs.last_interpreter_log = None
        cs.last_prologue_transformation_start = cs.last_prologue_transformation_stop = 0
        cs.last_computation_transformation_start = cs.last_computation_transformation_stop = 0
        self.entry = entry


class KnownEntry(NamedTuple):
    """A cache entry that the fast path has seen used: its hit function's ``CacheHit``, or None with the reason why
    it keeps upstream's path."""

    entry: object
    hit: CacheHit | None
    unsupported: str | None = None


class FastCallableState:
    """The guarded cache entries of one fast callable, newest first, and the bookkeeping on upstream's path that keeps
    them in step with upstream's cache: each call that a guard does not serve goes through ``call_upstream``."""

    __slots__ = (
        "hits",
        "calls",
        "shape_index",
        "cache",
        "n_entries",
        "publication",
        "known",
        "unsupported",
        "upstream_fn",
        "cd",
        "cs",
        "thunder_module_ref",
        "runtime",
        "misses",
        "arg_names",
        "cache_note",
    )

    def __init__(self, upstream_fn, cd, cs, thunder_module=None):
        self.hits: tuple[CacheHit, ...] = ()
        self.calls: tuple = ()  # the hits' generated functions, in the same order
        # The same, narrowed by the shape of the tensor passed at one position (calls_by_shape). One attribute, so
        # that a thread never reads one index's position with another's buckets.
        self.shape_index: ShapeIndex | None = None
        self.cache = None
        self.n_entries = -1
        self.publication = Publication(cs)
        self.known: dict[int, KnownEntry] = {}  # id(entry) -> KnownEntry
        self.unsupported: list[str] = []  # why entries kept upstream's path, in the order they were found
        self.upstream_fn = upstream_fn
        self.cd, self.cs = cd, cs
        # Weak: the ThunderModule holds this state's callable, and a strong reference back would keep both alive.
        self.thunder_module_ref = weakref.ref(thunder_module) if thunder_module is not None else lambda: None
        # What the generated hit functions reach besides their entry's own callables; none of it refers to this
        # state (see Publication).
        self.runtime = {
            "__cs": cs,
            "__publication": self.publication,
            "__publish": self.publication.publish,
            "__autocast_push": cd.autocast_stack.push,  # holds the stack, not the compile data
        }
        self.misses = MissRecorder(cd)  # what a call not served by a guard met (explain.py)
        # How explanations name things: the function's positional parameters, the cache option.
        self.arg_names = _positional_names(cd.fn)
        self.cache_note = f"(cache={cd.cache_option.name.lower().replace('_', ' ')})"

    @property
    def published(self):
        """The entry whose traces the fast path published last, None after a call through upstream's path: whether
        the last call was served by a generated hit function."""
        return self.publication.entry

    def call_upstream(self, args, kwargs, why: str):
        """A call that no guard served (``why``: "miss", "declined", "no guard" or "cache changed"): upstream's
        callable, then the entry it used gets its hit function, and the call its record (``explain.py``)."""
        self.publication.entry = None
        cs = self.cs
        before = (len(cs.interpreter_cache), cs.cache_hits, cs.cache_misses)
        try:
            result = self.upstream_fn(*args, **kwargs)
        except Exception:
            # The call may have made an entry whose computation then raised (an index out of range, out of memory):
            # upstream keeps it. Without its guard, every call would go through upstream's path until one call of
            # that entry succeeded, hits of the older entries too (none may be tried before it).
            try:
                self.guard_used_entry(args, kwargs, None)
                self.misses.after_upstream_call(self, args, kwargs, why, *before)
            except Exception:
                pass  # the caller gets upstream's exception, not ours; the next call goes through upstream's path
            raise
        self.guard_used_entry(args, kwargs, result)
        self.misses.after_upstream_call(self, args, kwargs, why, *before)
        return result

    def guard_used_entry(self, args, kwargs, result) -> None:
        """Gives the entry that the last upstream call used its hit function (built from that call), and makes the
        hits the guarded entries newest first, up to the first that has none (upstream would try that one before
        older ones: only upstream can go on)."""
        cache = self.cs.interpreter_cache
        used = entry_used_last(self.cs)
        if used is not None and self.known.get(id(used), (None,))[0] is not used:
            self.known[id(used)] = self.make_hit(used, args, kwargs, result)
        hits = []
        for entry in reversed(cache):
            known = self.known.get(id(entry))
            if known is None or known.entry is not entry or known.hit is None:
                break
            hits.append(known.hit)
        hits = tuple(hits)
        if hits != self.hits:
            self.calls = tuple(hit.call for hit in hits)
            self.shape_index = calls_by_shape(hits)
        self.hits, self.cache, self.n_entries = hits, cache, len(cache)
        live = {id(e) for e in cache}  # forget entries that left the cache
        self.known = {k: v for k, v in self.known.items() if k in live}

    def make_hit(self, entry, args, kwargs, result) -> KnownEntry:
        cd = self.cd
        try:
            guard = build_guard(
                entry.prologue_traces[-1],
                args,
                kwargs,
                thunder_module=self.thunder_module_ref(),
                compile_data=cd,
                data_parallel=bool(getattr(cd.fn, "use_ddp", False) or getattr(cd.fn, "use_fsdp", False)),
                arg_names=self.arg_names,
                cache_note=self.cache_note,
            )
            connection = None
            if entry.backward_fn is not None:
                options = cd.compile_options
                connection = AutogradConnection(
                    entry,
                    disable_split_autograd=options.get("thunderfx_disable_split_autograd", False),
                    is_differentiable_outputs=options.get("is_differentiable_outputs", None),
                )
            hit = CacheHit(
                entry,
                guard,
                self.runtime,
                args,
                kwargs,
                outputs=result,
                constant_values=cd.cache_option is CACHE_OPTIONS.CONSTANT_VALUES,
                connection=connection,
            )
            return KnownEntry(entry, hit)
        except Unsupported as e:
            reason = str(e)
        except Exception as e:
            # Not the caller's problem: the call went through upstream's path, and the entry stays there.
            reason = f"{type(e).__name__} while building the guard: {e}"
            warnings.warn(
                f"thunder.fastpath: {reason}; this cache entry keeps upstream's path", GuardBuildWarning, stacklevel=2
            )
        self.unsupported.append(reason)
        return KnownEntry(entry, None, reason)


def _positional_names(fn) -> tuple[str, ...]:
    """The names of ``fn``'s positional parameters (a module's ``forward``'s), for naming ``args[i]`` in words."""
    target = fn.forward if isinstance(fn, torch.nn.Module) else fn
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in parameters if p.kind in kinds)


def make_fast(upstream_fn, cd, cs, *, thunder_module=None):
    """Wraps the ``fn_`` that upstream's ``jit`` made into the fast callable; ``None`` if the options exclude it."""
    if cd.cache_option not in _FAST_CACHE_OPTIONS:
        return None
    state = FastCallableState(upstream_fn, cd, cs, thunder_module)

    def dispatch(args, kwargs):
        # One call of the jitted callable: the guarded entries in upstream's order (less those that require another
        # shape of the tensor passed at the index's position), else upstream's path.
        cache = cs.interpreter_cache
        if cache is not state.cache or len(cache) != state.n_entries:
            return state.call_upstream(args, kwargs, "cache changed")
        calls = state.calls
        index = state.shape_index
        if index is not None:
            position = index.position
            if type(position) is str:
                x = kwargs.get(position)
            else:
                x = args[position] if position < len(args) else None
            if isinstance(x, torch.Tensor):
                try:
                    calls = index.by_shape.get(x.shape, index.unshaped)
                except Exception:  # no sizes (a strided nested tensor) or sizes that do not hash: try them all
                    pass
        for call in calls:
            result = call(args, kwargs)
            if result is MISS:
                continue
            if result is DECLINE:
                return state.call_upstream(args, kwargs, "declined")
            return result
        # No entry's guard passed; or the newest entry has none (it keeps upstream's path, and so do older ones).
        return state.call_upstream(args, kwargs, "miss" if state.calls else "no guard")

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

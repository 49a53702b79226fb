"""The callable that ``thunder.jit`` returns on the fast path (``make_fast``), and its state (``FastCallableState``).

Stands for changes to ``thunder/__init__.py``'s ``fn_``: the cache lookup as a dispatch over the entries' generated
hit functions (``hit_function.py``), with Thunder's own callable for every call that none of them serves.

The fast callable tries the hit functions in Thunder's order, newest entry first, except those whose guards require
another shape of the tensor passed at one argument position: they would miss (``calls_by_shape``). Anything else (a
miss, an entry that has no guard, a guard that declines) goes through Thunder's own callable unchanged, after which
the entry that its lookup returned gets its function (``LookupRecord``), also when the computation raised. A call made
while Thunder traces another callable goes to Thunder's callable at once, as Thunder's ``fn_`` does under
``is_tracing()``. NOTE "Threads" in ``publication.py`` says what holds when several threads call one fast callable.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
import weakref
from typing import NamedTuple

import torch

from thunder.core.compile_data import compile_data_and_stats, get_compile_option
from thunder.core.options import CACHE_OPTIONS
from thunder.core.trace import _tracectx
from thunder.fastpath.explain import MissRecorder
from thunder.fastpath.guard import build_guard
from thunder.fastpath.guard_steps import DECLINE, MISS, NotThisCall, Unsupported
from thunder.fastpath.hit_function import CacheHit
from thunder.fastpath.publication import LookupRecord, Publication

FAST_CACHE_OPTIONS = (CACHE_OPTIONS.CONSTANT_VALUES, CACHE_OPTIONS.SYMBOLIC_VALUES)
# get_trace(None): the trace being built, None outside tracing; thunder.core.trace.is_tracing() asks the same
# through two Python frames.
get_trace = _tracectx.get


def spelled(cache_option) -> str:
    """A cache option as ``thunder.jit``'s ``cache=`` takes it ("no caching" for ``CACHE_OPTIONS.NO_CACHING``)."""
    return cache_option.name.lower().replace("_", " ")


FASTPATH_OPTION_USE = "Cache hits are decided by guards generated from each entry's prologue."


class FastPathDeclinedWarning(UserWarning):
    """The fast path does not serve a callable (its cache option) or one of its cache entries (a prologue check that
    the guard does not translate, a torch without the private API it reads): those calls take Thunder's path. The
    message names the reason; ``stats(f)`` lists the entries' reasons as well."""


class GuardBuildWarning(UserWarning):
    """A guard could not be built for a cache entry because of an unexpected error (a bug in the guard generator, not
    a prologue it does not translate): that entry keeps Thunder's path. This repository's tests and CI turn it into
    an error."""


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
    on a tie, the first found (newest entry first, each in its prologue's order). The functions keep Thunder's order.
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


class KnownEntry(NamedTuple):
    """A cache entry that the fast path has seen used: its hit function's ``CacheHit``, or None with the reason why
    it keeps Thunder's path."""

    entry: object
    hit: CacheHit | None
    unsupported: str | None = None


class DispatchView(NamedTuple):
    """What a call's dispatch reads, replaced whole whenever it changes (NOTE "Threads" in ``publication.py``)."""

    cache: list | None  # Thunder's cache list that this view was made for, with n_entries entries
    n_entries: int
    hits: tuple  # the guarded entries' ``CacheHit``s, newest first, up to the first entry without a guard
    calls: tuple  # their generated functions, in the same order
    shape_index: ShapeIndex | None  # the same, narrowed by the shape of a tensor argument (calls_by_shape)


_NOTHING_SEEN = DispatchView(None, -1, (), (), None)


class FastCallableState:
    """The guarded cache entries of one fast callable, newest first, and the bookkeeping on Thunder's path that keeps
    them in step with Thunder's cache: each call that a guard does not serve goes through ``call_upstream``."""

    __slots__ = (
        "view",
        "lock",
        "lookups",
        "publication",
        "known",
        "created",
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

    def __init__(self, upstream_fn, cd, cs, lookups: LookupRecord, thunder_module=None):
        self.view = _NOTHING_SEEN
        # Held by a thread on Thunder's path while it builds guards and replaces the view; hits never take it.
        self.lock = threading.RLock()
        self.lookups = lookups  # the entry that each thread's call through Thunder's path used
        self.publication = Publication(cs)
        self.known: dict[int, KnownEntry] = {}  # id(entry) -> KnownEntry
        self.created: set[int] = set()  # id(entry) of the entries whose making call has been recorded as a miss
        self.unsupported: list[str] = []  # why entries kept Thunder's path, in the order they were found
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
        self.cache_note = f"(cache={spelled(cd.cache_option)})"

    @property
    def hits(self) -> tuple[CacheHit, ...]:
        """The guarded entries that calls try, newest first."""
        return self.view.hits

    @property
    def shape_index(self) -> ShapeIndex | None:
        return self.view.shape_index

    @property
    def published(self):
        """The entry whose traces the fast path published last, None after a call through Thunder's path: whether
        the last call was served by a generated hit function."""
        return self.publication.entry

    def call_upstream(self, args, kwargs, why: str):
        """A call that no guard served (``why``: "miss", "declined", "no guard" or "cache changed"): Thunder's
        callable, then the entry it used gets its hit function, and the call its record (``explain.py``)."""
        self.lookups.clear()
        self.publication.entry = None
        n_before = len(self.cs.interpreter_cache)
        try:
            result = self.upstream_fn(*args, **kwargs)
        except Exception:
            # The call may have made an entry whose computation then raised (an index out of range, out of memory):
            # Thunder keeps it. Without its guard, every call would go through Thunder's path until one call of
            # that entry succeeded, hits of the older entries too (none may be tried before it).
            try:
                self.after_upstream_call(args, kwargs, why, n_before, None)
            except Exception:
                pass  # the caller gets Thunder's exception, not ours; the next call goes through Thunder's path
            raise
        self.after_upstream_call(args, kwargs, why, n_before, result)
        return result

    def after_upstream_call(self, args, kwargs, why: str, n_before: int, result) -> None:
        """The bookkeeping after a call through Thunder's path that found ``n_before`` entries in the cache: the
        entry that its lookup returned gets its hit function, the view follows the cache, the call gets its record."""
        self.publication.entry = None  # Thunder's lookup wrote the compile stats during the call (NOTE "Threads")
        cache = self.cs.interpreter_cache
        used = self.lookups.take(cache)
        with self.lock:
            made = self.made_by_call(cache, used, n_before)
            if made is not None:
                self.created.add(id(made))
                # The compile that made the entry counts the option as used (thunder.last_compile_options).
                with compile_data_and_stats(self.cd, self.cs):
                    get_compile_option("fastpath", FASTPATH_OPTION_USE)
            self.guard_used_entry(used, args, kwargs, result)
            self.misses.after_upstream_call(self, args, kwargs, why, made is not None, n_before)

    def made_by_call(self, cache, used, n_before: int):
        """The entry that a call through Thunder's path compiled, or None where it hit (or compiled none). A lookup
        only hits entries that were there when it began: an entry that it returned from the ``n_before`` on was
        compiled by it, unless it hit one that another thread appended meanwhile; the first of those calls to come
        here counts as the one that compiled it. A lookup that raised after compiling (the new entry's prologue
        failed) returned nothing: the newest entry since the call began that no call has counted is taken as its."""
        if used is not None:
            return used if id(used) not in self.created and _position(cache, used) >= n_before else None
        if self.lookups.raised:
            return next((e for e in reversed(cache[n_before:]) if id(e) not in self.created), None)
        return None

    def guard_used_entry(self, used, args, kwargs, result) -> None:
        """Gives ``used``, the entry that a call through Thunder's path used, its hit function (built from that call)
        and makes the view's hits the guarded entries newest first, up to the first that has none (Thunder would try
        that one before older ones: only Thunder can go on). Called under the lock."""
        cache = self.cs.interpreter_cache
        if used is not None and self.known.get(id(used), (None,))[0] is not used:
            known = self.make_hit(used, args, kwargs, result)
            if known is not None:
                self.known[id(used)] = known
        hits = []
        for entry in reversed(cache):
            known = self.known.get(id(entry))
            if known is None or known.entry is not entry or known.hit is None:
                break
            hits.append(known.hit)
        hits = tuple(hits)
        view = self.view
        if hits != view.hits:
            view = DispatchView(cache, len(cache), hits, tuple(hit.call for hit in hits), calls_by_shape(hits))
        elif view.cache is not cache or view.n_entries != len(cache):
            view = view._replace(cache=cache, n_entries=len(cache))
        self.view = view
        live = {id(e) for e in cache}  # forget entries that left the cache
        self.known = {k: v for k, v in self.known.items() if k in live}
        self.created &= live

    def make_hit(self, entry, args, kwargs, result) -> KnownEntry | None:
        """The entry's ``KnownEntry``, its guard built from the call (args, kwargs) that used it; None where that call
        cannot tell (it does not pass the entry's own checks): a later call of the entry tries again."""
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
            # stack: from 05-autograd-connection
            if entry.backward_fn is not None:
                from thunder.fastpath.autograd import AutogradConnection

                options = cd.compile_options
                connection = AutogradConnection(
                    entry,
                    disable_split_autograd=options.get("thunderfx_disable_split_autograd", False),
                    is_differentiable_outputs=options.get("is_differentiable_outputs", None),
                )
            # stack: end
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
        except NotThisCall:
            return None
        except Unsupported as e:
            reason = str(e)
            message = f"thunder.fastpath: {reason}; this cache entry takes Thunder's path"
            warnings.warn(message, FastPathDeclinedWarning, stacklevel=2)
        except Exception as e:
            # Not the caller's problem: the call went through Thunder's path, and the entry stays there.
            reason = f"{type(e).__name__} while building the guard: {e}"
            warnings.warn(
                f"thunder.fastpath: {reason}; this cache entry keeps Thunder's path", GuardBuildWarning, stacklevel=2
            )
        self.unsupported.append(reason)
        return KnownEntry(entry, None, reason)


def _position(cache, entry) -> int:
    """The entry's index in the cache list (entries are compared by identity: they are tuples of traces)."""
    return next(i for i in reversed(range(len(cache))) if cache[i] is entry)


def _positional_names(fn) -> tuple[str, ...]:
    """The names of ``fn``'s positional parameters (a module's ``forward``'s), for naming ``args[i]`` in words."""
    target = fn.forward if isinstance(fn, torch.nn.Module) else fn
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return tuple(p.name for p in parameters if p.kind in kinds)


def make_fast(upstream_fn, cd, cs, lookups: LookupRecord, *, thunder_module=None):
    """Wraps the ``fn_`` that Thunder's ``jit`` made into the fast callable (``lookups`` records the entries that
    ``fn_``'s cache lookups return); its cache option is one of ``FAST_CACHE_OPTIONS``."""
    state = FastCallableState(upstream_fn, cd, cs, lookups, thunder_module)

    def dispatch(args, kwargs):
        # One call of the jitted callable: the guarded entries in Thunder's order (less those that require another
        # shape of the tensor passed at the index's position), else Thunder's path. The view is read once: another
        # thread may replace it meanwhile (NOTE "Threads").
        seen, n_entries, _, guarded, index = state.view
        cache = cs.interpreter_cache
        if cache is not seen or len(cache) != n_entries:
            return state.call_upstream(args, kwargs, "cache changed")
        calls = guarded
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
        # No entry's guard passed; or the newest entry has none (it keeps Thunder's path, and so do older ones).
        return state.call_upstream(args, kwargs, "miss" if guarded else "no guard")

    def fast_fn(*args, **kwargs):
        if get_trace(None) is not None:
            # Called while Thunder traces a caller: Thunder's callable runs the function inside that trace. The
            # dispatcher must not run there: the caller's prologue would come to check this callable's state.
            return upstream_fn(*args, **kwargs)
        return dispatch(args, kwargs)

    functools.update_wrapper(fast_fn, upstream_fn)
    # stack: from 07-module-call
    fast_fn._lc_dispatch = dispatch  # what module.thunder_module_call calls, with args and kwargs as it got them
    # stack: end
    fast_fn._lc_fastpath_state = state
    return fast_fn

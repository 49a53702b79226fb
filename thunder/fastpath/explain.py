"""Why a call missed: recompile reasons, per-callable statistics and the ``thunder.fastpath`` logger.

Thunder counts misses (``thunder.cache_misses``); the fast path's guards are generated check by check from
each entry's prologue, so they can also say which check of which argument failed. Nothing here runs on a hit: a call
that no guard serves goes through Thunder's path (``dispatch.FastCallableState.call_upstream``), and only then, and
only where Thunder compiled a new entry (a cache miss), each older entry's guard is run again in its explaining form
(``guard.Guard.explain``), after the call, on the same arguments.

    import thunder.fastpath
    f = thunder.jit(fn)
    ...
    for record in thunder.fastpath.recompile_reasons(f):
        print(record)
    print(thunder.fastpath.stats(f))

The logger ``thunder.fastpath`` logs one line per miss at INFO; ``THUNDER_FASTPATH_LOGS=recompiles`` switches that on
without code, as ``TORCH_LOGS=recompiles`` does for Dynamo.
"""

from __future__ import annotations

import collections
import logging
import os
import warnings
from dataclasses import dataclass, field

from thunder.core.module import ThunderModule
from thunder.fastpath.guard_steps import DECLINE

logger = logging.getLogger("thunder.fastpath")

_MAX_RECORDS = 64  # per callable: the newest are kept
_MAX_DECLINE_REASONS = 8  # per callable: the declined calls explained (their distinct reasons kept)
# An entry that no call has been seen to use: the fast path builds a guard from a call whose lookup returned the entry,
# that is, a call that passed its prologue (in another thread, such a call may still be running).
NOT_USED_YET = "no call has passed its prologue yet"


@dataclass(frozen=True)
class EntryVerdict:
    """What one older cache entry's guard said of a call that missed."""

    entry: int  # the entry's position in the cache, 0 the oldest (Thunder tries the newest first)
    outcome: str  # "failed", "declined" (the guard cannot tell: Thunder's path decides) or "no guard"
    reason: str  # in words: the first check that failed, what the entry expected and what the call gave

    def __str__(self) -> str:
        return f"entry {self.entry} {self.outcome}: {self.reason}"


@dataclass(frozen=True)
class MissRecord:
    """One call that missed every cache entry, so that Thunder compiled a new one."""

    call: int  # the call's number, counting from 1 (``thunder.compile_stats(f).calls`` after it)
    entries: tuple[EntryVerdict, ...]  # the entries that existed before the call, newest first

    def __str__(self) -> str:
        if not self.entries:
            return f"call {self.call}: no cache entry yet"
        return f"call {self.call}: " + "; ".join(map(str, self.entries))


@dataclass(frozen=True)
class FastPathStats:
    """What a fast callable did: its calls, hits and misses (``thunder.cache_hits``/``cache_misses``), how many of its
    hits a generated hit function served, and its cache entries, with why those without a guard have none."""

    calls: int
    hits: int
    misses: int
    served_by_guards: int  # hits that generated hit functions served (the others went through Thunder's path)
    # why calls went there: "miss", "declined", "no guard" (the newest entry has none), "cache changed" (a first call)
    upstream_path_calls: dict = field(default_factory=dict)
    entries: int = 0
    guarded_entries: int = 0
    upstream_entries: tuple[str, ...] = ()  # why each entry without a guard has none
    decline_reasons: tuple[str, ...] = ()  # why guards declined (the first distinct ones)

    def __repr__(self) -> str:
        upstream = ", ".join(f"{n} {why}" for why, n in self.upstream_path_calls.items()) or "none"
        lines = [
            f"FastPathStats(calls={self.calls}, hits={self.hits} ({self.served_by_guards} served by guards),"
            f" misses={self.misses}, entries={self.entries} ({self.guarded_entries} guarded),"
            f" Thunder's path: {upstream})",
            *(f"  no guard: {why}" for why in self.upstream_entries),
            *(f"  declined: {why}" for why in self.decline_reasons),
        ]
        return "\n".join(lines)


class MissRecorder:
    """A fast callable's records of the calls that its guards did not serve (kept by its ``FastCallableState``)."""

    __slots__ = ("name", "records", "upstream_path_calls", "decline_reasons", "declines_explained")

    def __init__(self, cd):
        fn = cd.fn
        self.name = getattr(fn, "__qualname__", None) or type(fn).__name__
        self.records: collections.deque[MissRecord] = collections.deque(maxlen=_MAX_RECORDS)
        self.upstream_path_calls: collections.Counter = collections.Counter()
        self.decline_reasons: list[str] = []
        self.declines_explained = 0  # the first few declined calls are explained, not every one

    def after_upstream_call(self, state, args, kwargs, why: str, missed: bool, n_before: int):
        """Called after each call through Thunder's path, under the callable's lock, with ``why`` it went there,
        whether it ``missed`` (compiled a new entry) and how many entries the cache had before it. A miss gets its
        record."""
        self.upstream_path_calls[why] += 1
        if not missed:
            if why == "declined" and self.declines_explained < _MAX_DECLINE_REASONS:
                self.declines_explained += 1
                try:
                    self.note_decline(state, args, kwargs)
                except Exception:  # a bug here must not fail the caller's call; the reason goes unnoted
                    pass
            return
        try:
            verdicts = tuple(self.verdicts(state, args, kwargs, n_before))
        except Exception as e:  # a bug here must not fail the caller's call
            verdicts = (EntryVerdict(-1, "unexplained", f"explaining the miss raised {type(e).__name__}: {e}"),)
        record = MissRecord(state.cs.calls, verdicts)
        self.records.append(record)
        if logger.isEnabledFor(logging.INFO):
            logger.info("%s recompiled: %s", self.name, record)

    def verdicts(self, state, args, kwargs, n_before: int):
        """What each entry that existed before the call says of it, newest first."""
        cache = state.cs.interpreter_cache
        for position in reversed(range(min(n_before, len(cache)))):
            entry = cache[position]
            known = state.known.get(id(entry))
            if known is None or known.entry is not entry:
                yield EntryVerdict(position, "no guard", NOT_USED_YET)
            elif known.hit is None:
                yield EntryVerdict(position, "no guard", known.unsupported)
            else:
                explained = known.hit.guard.explain(args, kwargs)
                if explained is None:
                    reason = "its guard passes on the call's arguments as they are after the call"
                    yield EntryVerdict(position, "failed", reason)
                else:
                    verdict, message = explained
                    yield EntryVerdict(position, "declined" if verdict is DECLINE else "failed", message)

    def note_decline(self, state, args, kwargs) -> None:
        for hit in state.hits:
            explained = hit.guard.explain(args, kwargs)
            if explained is not None and explained[0] is DECLINE:
                if explained[1] not in self.decline_reasons:
                    self.decline_reasons.append(explained[1])
                return


def fastpath_state(jitted):
    """The ``FastCallableState`` of a callable that ``thunder.jit`` returned (a module's is on its forward), or None
    where it takes Thunder's path."""
    call = jitted._forward_fn if isinstance(jitted, ThunderModule) else jitted
    return getattr(call, "_lc_fastpath_state", None)


def _state(jitted):
    state = fastpath_state(jitted)
    if state is None:
        raise TypeError(f"{jitted!r} does not take the fast path (thunder.fastpath.is_fast is False)")
    return state


def recompile_reasons(jitted) -> list[MissRecord]:
    """For each call of the fast callable ``jitted`` that missed every cache entry (the newest 64): the call's number
    and, for each entry that existed before it, the first check that failed, in words."""
    return list(_state(jitted).misses.records)


def stats(jitted) -> FastPathStats:
    """Calls, hits and misses of the fast callable ``jitted``, how many hits its guards served, why calls went through
    Thunder's path, and its cache entries, guarded or not and why."""
    state = _state(jitted)
    cs, recorder = state.cs, state.misses
    with state.lock:  # what threads on Thunder's path change, read at one moment
        entries = list(cs.interpreter_cache)
        known = [state.known.get(id(e)) for e in entries]
        known = [k if k is not None and k.entry is e else None for k, e in zip(known, entries, strict=True)]
        return FastPathStats(
            calls=cs.calls,
            hits=cs.cache_hits,
            misses=cs.cache_misses,
            served_by_guards=state.publication.served,
            upstream_path_calls=dict(recorder.upstream_path_calls),
            entries=len(entries),
            guarded_entries=sum(k is not None and k.hit is not None for k in known),
            upstream_entries=tuple(NOT_USED_YET if k is None else k.unsupported for k in known if not (k and k.hit)),
            decline_reasons=tuple(recorder.decline_reasons),
        )


LOG_NAMES = ("recompiles",)  # what THUNDER_FASTPATH_LOGS may name, comma-separated, in any case


def log_from_environment() -> None:
    """``THUNDER_FASTPATH_LOGS=recompiles``: the ``thunder.fastpath`` logger at INFO, to standard error. A name that it
    does not know gets a warning."""
    value = os.environ.get("THUNDER_FASTPATH_LOGS", "")
    names = {name.strip().lower() for name in value.split(",") if name.strip()}
    unknown = sorted(names - set(LOG_NAMES))
    if unknown:
        warnings.warn(
            f"THUNDER_FASTPATH_LOGS={value!r}: {', '.join(unknown)} unknown (known: {', '.join(LOG_NAMES)})",
            stacklevel=2,
        )
    if "recompiles" in names:
        logger.setLevel(logging.INFO)
        if not logger.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("[thunder.fastpath] %(message)s"))
            logger.addHandler(handler)

"""Which cache entry a call through Thunder's path used (``LookupRecord``), and what a hit publishes in the compile
stats (``Publication``): the traces of the cache entry it used, as a Thunder hit does, and the hits served.

# NOTE: Threads
One jitted callable may be called from several threads. Thunder's cache stays correct under threads (each call
finds an entry or compiles one; two threads may compile the same entry twice), and so must the fast path:

* the entry that a call through Thunder's path used is the one its own cache lookup returned, recorded per thread
  (``LookupRecord``), never inferred from the compile stats' "last" fields, which every thread writes;
* hits take no lock: they read the dispatcher's state as one immutable tuple (``dispatch.DispatchView``), which a
  thread on Thunder's path replaces whole, under the callable's lock, after building guards;
* ``Publication.publish`` writes the compile stats' fields under a lock and marks the entry published last, so the
  fields that hits leave always belong to one entry. Thunder's lookup writes some of the same fields without that
  lock: after each call through Thunder's path the mark is cleared, and the next hit publishes again.
"""

from __future__ import annotations

import threading


class LookupRecord(threading.local):
    """What this thread's last cache lookup of one jitted callable returned: ``recording(lookup)`` wraps Thunder's
    ``get_computation_and_inputs`` (the lookup that ``fn_`` calls) to record it, ``take`` reads it once."""

    # Per thread (class defaults: threading.local runs no __init__ in other threads). `raised`: the lookup raised, as
    # Thunder's does when the prologue of the entry that it has just compiled fails.
    entry = None
    raised = False

    def recording(self, lookup):
        """``lookup`` (``get_computation_and_inputs``), recording the entry that it returns in the calling thread."""

        def get_computation_and_inputs(*args, **kwargs):
            self.raised = True
            result = lookup(*args, **kwargs)
            self.raised = False
            self.entry = result[0]
            return result

        return get_computation_and_inputs

    def clear(self) -> None:
        self.entry, self.raised = None, False

    def take(self, cache):
        """The cached entry that this thread's lookup returned since ``clear`` (or None), matched in ``cache``:
        Thunder's lookup returns a copy of it (``decorate_computation_function`` replaces its computation)."""
        returned, self.entry = self.entry, None
        if returned is None:
            return None
        return next((e for e in reversed(cache) if e.prologue_traces is returned.prologue_traces), None)


def entry_used_last(cs):
    """The cache entry whose prologue traces the compile stats name last: for tools that call a jitted callable from
    one thread only (under threads, any thread's call may have written them)."""
    return next((e for e in cs.interpreter_cache if e.prologue_traces is cs.last_prologue_traces), None)


class Publication:
    """The cache entry whose traces the fast path last published in the compile stats (None after a call through
    Thunder's path), ``publish``, which writes what a Thunder hit of an entry writes there, and ``served``, the
    hits that generated hit functions served.

    The generated hit functions reach this object; they must not reach the ``FastCallableState`` or a ``CacheHit``,
    which hold them: such a reference cycle would keep the compile stats, and through them the jitted function or
    module, alive until Python's cycle collector runs. Thunder's callables make none (its
    test_jit_nn_module_cycle_leak)."""

    __slots__ = ("entry", "cs", "served", "lock")

    def __init__(self, cs):
        self.entry = None
        self.cs = cs
        self.served = 0
        self.lock = threading.Lock()

    def publish(self, entry) -> None:
        # The statistics a Thunder hit writes; they only change when the entry hit changes (NOTE "Threads").
        cs = self.cs
        with self.lock:
            cs.last_traces = entry.computation_traces
            cs.last_prologue_traces = entry.prologue_traces
            cs.last_prologue = entry.prologue_fn
            cs.last_computation = entry.computation_fn
            cs.last_interpreted_instructions = None
            cs.last_interpreter_log = None
            cs.last_prologue_transformation_start = cs.last_prologue_transformation_stop = 0
            cs.last_computation_transformation_start = cs.last_computation_transformation_stop = 0
            self.entry = entry

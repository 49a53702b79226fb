"""What a hit publishes in the compile stats: the traces of the cache entry it used, as an upstream hit does."""

from __future__ import annotations


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

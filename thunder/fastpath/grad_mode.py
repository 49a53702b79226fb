"""The grad mode that a fast callable's compile data records, one per thread (stands for a change to ``CompileData`` in
``thunder/common.py``).

Thunder's ``populate_cache_info`` writes ``cd.is_grad_enabled`` on every call, tracing reads it (which operations
need a backward) and ``fn_`` ends each call with ``set_grad_enabled(cd.is_grad_enabled)``. One field for all threads:
when a thread under ``no_grad`` calls while another compiles an entry in grad mode, that entry is traced without its
backward yet cached for grad mode, and later calls in grad mode return outputs that do not require grad. A fast
callable's compile data keeps the field per thread, so that each call reads what its own thread wrote.
"""

from __future__ import annotations

import threading

from thunder.common import CompileData


class _PerThread(threading.local):
    enabled = True  # CompileData's initial value, in every thread


class PerThreadGradModeCompileData(CompileData):
    """``CompileData`` whose ``is_grad_enabled`` is one value per thread."""

    @property
    def is_grad_enabled(self) -> bool:
        return self.__dict__["_grad_mode_per_thread"].enabled

    @is_grad_enabled.setter
    def is_grad_enabled(self, enabled: bool) -> None:
        self.__dict__["_grad_mode_per_thread"].enabled = enabled


def keep_grad_mode_per_thread(cd) -> None:
    """Makes ``cd.is_grad_enabled`` a per-thread value, starting from its value in this thread."""
    if type(cd) is not CompileData:
        return  # already done, or a subclass of Thunder's that keeps its own
    per_thread = _PerThread()
    per_thread.enabled = cd.__dict__.pop("is_grad_enabled", True)
    cd.__dict__["_grad_mode_per_thread"] = per_thread
    cd.__class__ = PerThreadGradModeCompileData

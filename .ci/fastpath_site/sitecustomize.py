"""Imports thunder.fastpath when the interpreter starts (put this folder on PYTHONPATH).

lightning-thunder's distributed tests run in worker processes that multiprocessing spawns; pytest's
`-p thunder.fastpath` reaches only the parent. With this folder on PYTHONPATH every process imports the fast path,
and THUNDER_FASTPATH (1 or 0) decides as usual. With FASTPATH_REPORT naming a file, each callable jitted with the
fast path appends one JSON line to it when it is collected or the process exits: its calls, hits and misses, how
many cache entries got a guard, and why any did not, so that a run can show the fast path was in use.
"""

import json
import os
import weakref

import thunder.fastpath as _fastpath

_report_path = os.environ.get("FASTPATH_REPORT")


def _report(name, cs, state):
    line = {
        "pid": os.getpid(),
        "rank": os.environ.get("RANK"),
        "fn": name,
        "calls": cs.calls,
        "hits": cs.cache_hits,
        "misses": cs.cache_misses,
        "guarded_entries": len(state.hits),
        "unsupported": state.unsupported,
    }
    with open(_report_path, "a") as f:
        f.write(json.dumps(line) + "\n")


if _report_path:
    _make_fast = _fastpath.make_fast

    def _make_fast_reported(upstream_fn, cd, cs, **kwargs):
        fast = _make_fast(upstream_fn, cd, cs, **kwargs)
        if fast is not None:
            name = getattr(cd.fn, "__qualname__", type(cd.fn).__name__)
            weakref.finalize(fast, _report, name, cs, fast._lc_fastpath_state)
        return fast

    _fastpath.make_fast = _make_fast_reported

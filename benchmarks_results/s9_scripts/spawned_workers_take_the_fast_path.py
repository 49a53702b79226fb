"""Checks .ci/fastpath_site on this CPU: processes that multiprocessing spawns import the fast path and report.

    rm -f /tmp/report.jsonl
    PYTHONPATH=$PWD/.ci/fastpath_site FASTPATH_REPORT=/tmp/report.jsonl .venv/bin/python THIS_FILE
    THUNDER_FASTPATH=0 PYTHONPATH=$PWD/.ci/fastpath_site FASTPATH_REPORT=/tmp/report.jsonl .venv/bin/python THIS_FILE

Prints, per worker, whether its jitted function is fast (True with the fast path on, False with it off); the report
file gets one line per fast callable (none with it off).
"""

import multiprocessing

import torch


def work(_):
    import thunder

    f = thunder.jit(lambda a: a * 2)
    for _ in range(3):
        f(torch.ones(3))
    return thunder.fastpath.is_fast(f) if hasattr(thunder, "fastpath") else "thunder.fastpath not imported"


if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print(pool.map(work, [0, 1]))

"""Session 41: several threads making the first calls of one jitted function at once, with different shapes (so
entries are made and guarded while other threads dispatch), upstream (fastpath=False) against the fast path. Per
system and round: whether every output equals eager's, exceptions by type, and whether hits + misses equals the
calls made (the statistics stay exact). Both halves should read alike (upstream's own compile path is shared).

    .venv/bin/python benchmarks_results/s41_scripts/threads_first_calls_probe.py
"""
import collections
import os
import sys
import threading

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


def f(a, b):
    return a.sin() * b + a.shape[0]


N_THREADS, CALLS, ROUNDS = 6, 40, 5
for fastpath in (False, True):
    for rnd in range(ROUNDS):
        j = thunder.jit(f, fastpath=fastpath)
        outcomes = collections.Counter()
        barrier = threading.Barrier(N_THREADS)

        def work(k):
            barrier.wait()
            for i in range(CALLS):
                n = 2 + (k + i) % 4  # four shapes, taken in turn by the threads
                a, b = T.t(n, seed=i), T.t(n, seed=i + 1)
                try:
                    out = j(a, b)
                    outcomes["equal" if torch.equal(out, f(a, b)) else "DIFFERS"] += 1
                except Exception as e:
                    outcomes[f"raised {type(e).__name__}"] += 1

        threads = [threading.Thread(target=work, args=(k,)) for k in range(N_THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        hits, misses = T.hits_misses(j)
        calls = thunder.compile_stats(j).calls
        print(f"fastpath={fastpath!s:5s} round {rnd}: {dict(outcomes)} hits {hits} misses {misses} calls {calls} "
              f"hits+misses==calls made: {hits + misses == N_THREADS * CALLS}")

"""What a call costs when it is not a hit of the newest cache entry: eager, upstream thunder.jit and the fast path.

    python thunder/benchmarks/cache_entries.py [--device cpu|cuda] [--entries 1,4,16] [--quick] [--json PATH]

Under "constant values" every input shape gets its own cache entry, and a call tries the entries newest first.
Upstream runs each newer entry's prologue until one passes (a prologue that fails raises, and upstream catches
it); the fast path runs each newer entry's guard (a guard that fails returns MISS). Two measurements:

* hits: a function and a module, each called with N shapes in turn (N entries), then timed on the first shape
  (the oldest entry: N - 1 newer entries fail first) and on the last (the newest entry). The same with the
  changing shape passed elsewhere than first: as the second argument, or by keyword (the fast path skips the
  guards of entries that require another shape at the position where the entries' shapes differ most). Medians
  over repeats, all systems interleaved repeat by repeat; "per newer entry" is (oldest - newest) / (N - 1). A row's
  mark: '=' outputs bitwise equal to upstream's, the same hit and miss counts, and the fast call served by a guard;
  '!' otherwise (the script then exits with 1).
* first calls: a fresh jitted callable per call (a miss that compiles), upstream and fast interleaved; the
  difference is what the fast path adds to a miss (it builds the entry's guard and hit function).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import time
from dataclasses import asdict, dataclass

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import thunder  # noqa: E402

import small_graph  # noqa: E402  (timing, output comparison, fast-path state; it imports thunder.fastpath)


def two_inputs(a, b):
    return a * b + a


def matmul(w, x):
    return w @ x


def make_cases(device: str, n: int):
    """(name, callable, argument tuples for n shapes, grad mode): a function of two tensors of 8 x (8 + i), i < n,
    and a Linear module in inference with n batch sizes."""
    torch.manual_seed(0)
    shapes = [(8, 8 + i) for i in range(n)]
    function_args = [(torch.randn(s, device=device), torch.randn(s, device=device)) for s in shapes]
    linear = torch.nn.Linear(64, 64).to(device)
    module_args = [(torch.randn(1 + i, 64, device=device),) for i in range(n)]
    return [("two_inputs", two_inputs, function_args, True), ("linear_batches", linear, module_args, False)]


def make_elsewhere_cases(device: str, n: int):
    """(name, callable, (args, kwargs) for n shapes, grad mode), the shape that changes passed elsewhere than first:
    two_inputs by keywords; a fixed 8 x 8 matrix times one of 8 x (8 + i); the Linear with its input by keyword."""
    torch.manual_seed(0)
    shapes = [(8, 8 + i) for i in range(n)]
    keyword_calls = [((), {"a": torch.randn(s, device=device), "b": torch.randn(s, device=device)}) for s in shapes]
    w = torch.randn(8, 8, device=device)
    second_calls = [((w, torch.randn(s, device=device)), {}) for s in shapes]
    linear = torch.nn.Linear(64, 64).to(device)
    module_calls = [((), {"input": torch.randn(1 + i, 64, device=device)}) for i in range(n)]
    return [
        ("two_inputs_kw", two_inputs, keyword_calls, True),
        ("matmul_second", matmul, second_calls, True),
        ("linear_kw", linear, module_calls, False),
    ]


def hit_cases(device: str, n: int):
    """Every hit case, as ``(name, callable, (args, kwargs) for n shapes, grad mode)``: ``make_cases``'s, then
    ``make_elsewhere_cases``'s."""
    for name, fn, argsets, grad in make_cases(device, n):
        yield name, fn, [(a, {}) for a in argsets], grad
    yield from make_elsewhere_cases(device, n)


@dataclass
class Row:
    case: str
    entries: int
    system: str
    median_us: float
    min_us: float
    max_us: float = 0.0
    check: str = ""


def counts(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


def served_by_guard(fast) -> bool:
    """Whether the fast callable's last call was a hit that its generated function served (not upstream's path)."""
    return small_graph.fast_state(fast).published is not None


def time_hits(name, fn, calls, grad, repeats, budget_s) -> list[Row]:
    """``calls``: (args, kwargs) for each shape."""
    n = len(calls)
    upstream = thunder.jit(fn, fastpath=False)
    fast = thunder.jit(fn, fastpath=True)
    with torch.set_grad_enabled(grad):
        for _ in range(2):  # the first round makes the entries (each gets its guard after its call), the second hits
            for args, kwargs in calls:
                upstream(*args, **kwargs)
                fast(*args, **kwargs)
        oldest, newest = calls[0], calls[-1]
        check = {}
        for label, (args, kwargs) in (("oldest", oldest), ("newest", newest)):
            same = small_graph.bitwise_equal(upstream(*args, **kwargs), fast(*args, **kwargs))
            same = same and counts(upstream) == counts(fast)
            check[label] = "=" if same and served_by_guard(fast) else "!"
        systems = {
            "eager": (fn, oldest, ""),
            "thunder oldest": (upstream, oldest, check["oldest"]),
            "fast oldest": (fast, oldest, check["oldest"]),
            "thunder newest": (upstream, newest, check["newest"]),
            "fast newest": (fast, newest, check["newest"]),
        }
        calls = {system: functools.partial(f, *a, **kw) for system, (f, (a, kw), _) in systems.items()}
        samples = small_graph.time_by_budget(calls, repeats, budget_s)
    return [Row(name, n, s, statistics.median(v), min(v), max(v), systems[s][2]) for s, v in samples.items()]


def time_first_calls(name, fn, args, grad, calls) -> list[Row]:
    samples = {"thunder first call": [], "fast first call": []}
    with torch.set_grad_enabled(grad):
        for _ in range(calls):
            for system, fastpath in (("thunder first call", False), ("fast first call", True)):
                f = thunder.jit(fn, fastpath=fastpath)
                start = time.perf_counter()
                f(*args)
                if args[0].is_cuda:
                    torch.cuda.synchronize()
                samples[system].append((time.perf_counter() - start) * 1e6)
    return [Row(name, 1, s, statistics.median(v), min(v), max(v)) for s, v in samples.items()]


def per_newer_entry(rows: list[Row]) -> list[str]:
    lines = []
    by_key = {(r.case, r.entries, r.system): r for r in rows}
    for case, n in sorted({(r.case, r.entries) for r in rows if r.entries > 1}):
        parts = []
        for system in ("thunder", "fast"):
            oldest, newest = by_key.get((case, n, f"{system} oldest")), by_key.get((case, n, f"{system} newest"))
            if oldest and newest:
                parts.append(f"{system} {(oldest.median_us - newest.median_us) / (n - 1):.2f}")
        lines.append(f"{case:<16} {n:>3} entries: per newer entry (µs) " + ", ".join(parts))
    return lines


def slower_than_upstream(rows: list[Row]) -> list[str]:
    """Each row where the fast path is slower than upstream beyond the spread: its median above upstream's slowest."""
    by_key = {(r.case, r.entries, r.system): r for r in rows}
    lines = []
    for (case, n, system), fast in by_key.items():
        if not system.startswith("fast "):
            continue
        upstream = by_key.get((case, n, "thunder " + system[len("fast ") :]))
        if upstream is not None and fast.median_us > upstream.max_us:
            lines.append(
                f"  {case} {n} {system}: median {fast.median_us:.2f} us > upstream's slowest {upstream.max_us:.2f}"
            )
    return lines or ["  none"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--entries", default="1,4,16", help="comma-separated numbers of cache entries")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    repeats, budget_s, first_calls = (5, 0.01, 5) if args.quick else (15, 0.05, 21)
    print(f"python {sys.version.split()[0]} | torch {torch.__version__} | device {args.device} | repeats {repeats}")
    rows = []
    for n in map(int, args.entries.split(",")):
        for name, fn, calls, grad in hit_cases(args.device, n):
            rows += time_hits(name, fn, calls, grad, repeats, budget_s)
    for name, fn, argsets, grad in make_cases(args.device, 1):
        rows += time_first_calls(name, fn, argsets[0], grad, first_calls)
    print(f"{'case':<16} {'entries':>7} {'system':<20} {'median us':>10} {'min':>9}  out")
    for r in rows:
        print(f"{r.case:<16} {r.entries:>7} {r.system:<20} {r.median_us:>10.2f} {r.min_us:>9.2f}  {r.check}")
    print("\n" + "\n".join(per_newer_entry(rows)))
    print("\nout: '=' bitwise equal to upstream with the same hit and miss counts, and served by the fast path's guard")
    print("\nfast slower than upstream beyond the spread:", *slower_than_upstream(rows), sep="\n")
    if args.json:
        env = small_graph.environment(args.device)
        with open(args.json, "w") as f:
            json.dump({"environment": env, "argv": sys.argv[1:], "rows": [asdict(r) for r in rows]}, f, indent=1)
    return 1 if any(r.check == "!" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())

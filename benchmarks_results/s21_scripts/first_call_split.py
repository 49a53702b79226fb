"""Session 21: what the fast path adds to a call that compiles (a first call), and where it goes (not in CI).

For a function of two 8x8 tensors and a Linear(64, 64) in inference: a fresh upstream and a fresh fast callable per
round, interleaved, each called once. For the fast calls it also times the two steps that follow upstream's path
on a miss (cache_hit.py's _make_hit): build_guard (the entry's guard: generated, compiled, two TensorGuards) and
CacheHit (the hit function: compiled with the guard; on CUDA also the region checks). Medians and minima, ms.

    .venv/bin/python benchmarks_results/s21_scripts/first_call_split.py [--device cpu|cuda] [--rounds 21]
"""

import argparse
import statistics
import time

import torch

import thunder
import thunder.fastpath.cache_hit as cache_hit


def two_inputs(a, b):
    return a * b + a


def timed(samples, key, fn):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            samples[key].append((time.perf_counter() - start) * 1e3)

    return wrapper


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args()
    dev = args.device
    torch.manual_seed(0)
    cases = [
        ("two_inputs", two_inputs, (torch.randn(8, 8, device=dev), torch.randn(8, 8, device=dev)), True),
        ("linear", torch.nn.Linear(64, 64).to(dev), (torch.randn(4, 64, device=dev),), False),
    ]
    print(f"torch {torch.__version__}, device {dev}, {args.rounds} rounds; ms per first call: median (min)")
    for name, fn, inputs, grad in cases:
        samples = {"thunder first call": [], "fast first call": [], "build_guard": [], "CacheHit": []}
        build_guard, hit_class = cache_hit.build_guard, cache_hit.CacheHit
        cache_hit.build_guard = timed(samples, "build_guard", build_guard)
        cache_hit.CacheHit = timed(samples, "CacheHit", hit_class)
        try:
            with torch.set_grad_enabled(grad):
                for _ in range(args.rounds):
                    for key, fastpath in (("thunder first call", False), ("fast first call", True)):
                        f = thunder.jit(fn, fastpath=fastpath)
                        start = time.perf_counter()
                        f(*inputs)
                        if dev == "cuda":
                            torch.cuda.synchronize()
                        samples[key].append((time.perf_counter() - start) * 1e3)
        finally:
            cache_hit.build_guard, cache_hit.CacheHit = build_guard, hit_class
        assert len(samples["build_guard"]) == len(samples["CacheHit"]) == args.rounds  # one guarded entry per call
        parts = ", ".join(f"{k} {statistics.median(v):.2f} ({min(v):.2f})" for k, v in samples.items())
        print(f"  {name}: {parts}")


if __name__ == "__main__":
    main()

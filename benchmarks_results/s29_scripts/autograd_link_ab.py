"""Session 29: what a training step costs with the hit's autograd connection as upstream makes it (the link tensor and
its gradient from torch.randn on the meta device) against thunder/fastpath/autograd.py's (torch.empty). One fast
callable per case; the module-level name that cache_hit.py calls is switched between rows, so both rows run the same
guard and computation. Eager and upstream thunder.jit alongside; rows interleaved repeat by repeat; µs per call.

    python benchmarks_results/s29_scripts/autograd_link_ab.py [--device cpu|cuda] [--number 2000] [--repeats 15]
"""
import argparse
import statistics
import sys
import timeit

import torch

sys.path.insert(0, "thunder/benchmarks")  # run from the repository root
from small_graph import train_step_fn  # noqa: E402

import thunder  # noqa: E402
import thunder.fastpath
from thunder.executors import torch_autograd as upstream_autograd
from thunder.fastpath import autograd as fast_autograd
from thunder.fastpath import cache_hit


def cases(device):
    x, w = torch.randn(4, 16, device=device), torch.randn(16, 16, device=device, requires_grad=True)
    mlp = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1)).to(device)
    return [("train_step", train_step_fn, (x, w)), ("mlp_2_layers", mlp, (torch.randn(4, 16, device=device),))]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cpu")
    p.add_argument("--number", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args()
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    links = {"fast, upstream's link": upstream_autograd.connect_to_autograd,
             "fast, empty link": fast_autograd.connect_to_autograd}
    print(f"torch {torch.__version__} | thunder {thunder.__version__} | device {a.device} | number {a.number}")
    for name, fn, args in cases(a.device):
        systems = {"eager": fn, "thunder": thunder.jit(fn, fastpath=False), "fast": thunder.jit(fn)}
        rows = {"eager": systems["eager"], "thunder": systems["thunder"], **{k: systems["fast"] for k in links}}
        for phase in ("forward", "step"):
            def timed(f, phase=phase):
                def once():
                    out = f(*args)
                    if phase == "step":
                        out.sum().backward()
                return once
            grads = {}
            for row, f in rows.items():  # warm-up, and gradients for a bitwise check
                if row in links:
                    cache_hit.connect_to_autograd = links[row]
                for _ in range(5):
                    timed(f)()
                for t in args if not isinstance(fn, torch.nn.Module) else fn.parameters():
                    t.grad = None
                out = f(*args)
                out.sum().backward()
                grads[row] = [t.grad.clone() for t in (args if not isinstance(fn, torch.nn.Module) else fn.parameters())
                              if t.grad is not None]
            samples = {row: [] for row in rows}
            for _ in range(a.repeats):
                for row, f in rows.items():
                    if row in links:
                        cache_hit.connect_to_autograd = links[row]
                    sync()
                    t = timeit.timeit(timed(f), number=a.number)
                    sync()
                    samples[row].append(t / a.number * 1e6)
            cache_hit.connect_to_autograd = fast_autograd.connect_to_autograd
            hits = thunder.cache_hits(systems["fast"])
            for row, s in samples.items():
                # fast rows: bitwise against upstream's; eager: close (other kernels for the backward's matmuls)
                compare = torch.allclose if row == "eager" else torch.equal
                same = len(grads[row]) == len(grads["thunder"]) and all(
                    compare(g, h) for g, h in zip(grads[row], grads["thunder"]))
                check = ("~" if row == "eager" else "=") if same else "!"
                print(f"{name:14} {phase:8} {row:24} median {statistics.median(s):9.2f}  min {min(s):9.2f}"
                      f"  grads {check} thunder")
            print(f"{name:14} {phase:8} fast callable: {hits} hits, {thunder.cache_misses(systems['fast'])} misses")


if __name__ == "__main__":
    main()

"""Session 47: why does a guard cost more in front of a computation than in a loop of its own (sessions 14, 44, 46:
1.3-3x)? Hypothesis: the work between two guard calls evicts what the guard touches (its bytecode, the objects it
reads, the interpreter's and torch's code paths) from the CPU's caches and branch predictors.

The guard's own time is read with perf_counter_ns around each guard call, so the work in between does not enter the
figure (the timer's own cost is the same in every row). Work between two guard calls, each row timed interleaved
repeat by repeat with the others:
  - none (the guard in a loop of its own);
  - copy N bytes: one torch copy_ of N bytes into another buffer (touches 2N bytes of data, one op dispatch);
  - python K: K distinct generated Python functions, each reading 16 attributes of its own object (code and data
    that the interpreter has not touched in the guard);
  - torch ops K: K small torch ops on 8x8 tensors (torch's dispatcher and kernels, little data);
  - computation: the entry's computation itself (what a hit runs after its guard).
Guards: nanoGPT at width 16 (about 670 lines, 53 tensors) and two_8x8's (2 tensors), CPU tensors. With "cuda" (the
H200's host), also #1657's guard (a CUDA tensor), with two more works: the region's executor (``fd.fec.execute`` as
the hit calls it) and the computation; CUDA is synchronized after each sample.

    python guard_in_place.py [number] [repeats] [cpu|cuda] [--only-1657]
"""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402

import thunder  # noqa: E402
from thunder.tests import nanogpt_model  # noqa: E402

number = int(sys.argv[1]) if len(sys.argv) > 1 else 300
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 15
device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
perf = time.perf_counter_ns


def copy_work(nbytes):
    src, dst = torch.ones(nbytes, dtype=torch.uint8), torch.empty(nbytes, dtype=torch.uint8)
    return lambda: dst.copy_(src)


def python_work(k):
    namespace = {}
    objs = []
    for i in range(k):
        o = type(f"O{i}", (), {})()
        for j in range(16):
            setattr(o, f"a{j}_{i}", j)
        objs.append(o)
        body = " + ".join(f"o.a{j}_{i}" for j in range(16))
        exec(f"def f{i}(o):\n    return {body}\n", namespace)
    fns = [namespace[f"f{i}"] for i in range(k)]
    pairs = list(zip(fns, objs))

    def run():
        for f, o in pairs:
            f(o)
    return run


def torch_work(k):
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    ops = [torch.add, torch.mul, torch.sub, torch.maximum, torch.minimum, torch.atan2, torch.hypot, torch.fmod]

    def run():
        for i in range(k):
            ops[i % len(ops)](a, b)
    return run


def guard_times(guard, args, works):
    """Per work, one sample per repeat: the guard's mean µs per call, with the work run before each guard call."""
    samples = {name: [] for name in works}
    for _ in range(repeats):
        for name, work in works.items():
            total = 0
            for _ in range(number):
                work()
                t0 = perf()
                guard(args, {})
                total += perf() - t0
            sync()
            samples[name].append(total / number / 1000)
    return samples


def report(title, samples):
    base = statistics.median(samples["none"])
    print(f"\n{title}: guard µs per call (median, min over {repeats} repeats of {number} calls), ratio to 'none'")
    for name, s in samples.items():
        med = statistics.median(s)
        print(f"  {name:<22} {med:8.3f} {min(s):8.3f}   x{med / base:5.2f}")


def main():
    # One intra-op thread: a parallel copy leaves OpenMP workers spinning on the other vCPU, which may share a core.
    torch.set_num_threads(1)
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, thunder {thunder.__version__}, python {sys.version.split()[0]}, "
          f"torch threads {torch.get_num_threads()}")
    model = nanogpt_model.GPT(nanogpt_model.GPTConfig(n_layer=4, n_head=2, n_embd=16, block_size=8, vocab_size=32,
                                                      dropout=0.0)).eval()
    idx = torch.randint(0, 32, (1, 1))
    cases = small_graph.make_cases("cpu")
    two = next(c for c in cases if c.name == "two_8x8")
    with torch.no_grad():
        jitted = thunder.jit(model, fastpath=True)
        for _ in range(3):
            jitted(idx)
        nano_guard = jitted._forward_fn._lc_fastpath_state.hits[0].guard.check
        nano_comp = small_graph.computation_only(jitted)(idx)
        assert isinstance(nano_guard((idx,), {}), tuple)
    with small_graph.case_context(two):
        fast_two = thunder.jit(two.fn, fastpath=True)
        for _ in range(3):
            fast_two(*two.args)
        two_guard = fast_two._lc_fastpath_state.hits[0].guard.check
        two_comp = small_graph.computation_only(fast_two)(*two.args)
        assert isinstance(two_guard(tuple(two.args), {}), tuple)

    common = {
        "none": lambda: None,
        "copy 8 KB": copy_work(8 << 10),
        "copy 64 KB": copy_work(64 << 10),
        "copy 512 KB": copy_work(512 << 10),
        "copy 4 MB": copy_work(4 << 20),
        "copy 32 MB": copy_work(32 << 20),
        "python 10": python_work(10),
        "python 100": python_work(100),
        "python 1000": python_work(1000),
        "torch ops 10": torch_work(10),
        "torch ops 100": torch_work(100),
    }
    if "--only-1657" not in sys.argv:
        run_cpu_tensor_guards(common, nano_guard, nano_comp, idx, two, two_guard, two_comp)
    if device == "cuda":
        run_1657(common)


def run_cpu_tensor_guards(common, nano_guard, nano_comp, idx, two, two_guard, two_comp):
    with torch.no_grad():
        report("nanoGPT width 16 (53 tensors)", guard_times(nano_guard, (idx,), {**common, "computation": nano_comp}))
    with small_graph.case_context(two):
        report("two_8x8 (2 tensors)", guard_times(two_guard, tuple(two.args), {**common, "computation": two_comp}))


def run_1657(common):
    issue = next(c for c in small_graph.make_cases("cuda") if c.name == "issue1657")
    fast = thunder.jit(issue.fn, fastpath=True)
    for _ in range(3):
        fast(*issue.args)
    hit = small_graph.fast_state(fast).hits[0]
    args = tuple(issue.args)
    assert isinstance(hit.guard.check(args, {}), tuple)
    execute = hit.region_call.region.prepared[1]
    works = {**common, "fd.fec.execute": lambda: execute(args), "computation": small_graph.computation_only(fast)(*args)}
    report("#1657 on CUDA (1 tensor)", guard_times(hit.guard.check, args, works))


if __name__ == "__main__":
    main()

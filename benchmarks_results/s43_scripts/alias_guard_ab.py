"""Session 43: the guard of an entry made for arguments that share storage, before (a frozen copy of guard.py at
c9cbf13: the general alias check, which flattens the arguments) and after (GuardBuilder.expected_aliasing), built from
the same prologue and call, timed interleaved (min and median of 15 repeats, µs per call). Cases: f(x, x), f(x, y)
(no aliasing: unchanged), and a jitted nn.MultiheadAttention for self-attention, mha(q, q, q)."""
import argparse
import importlib.util
import statistics
import timeit

import torch

import thunder
import thunder.fastpath  # noqa: F401
from thunder.fastpath import guard as after

spec = importlib.util.spec_from_file_location("guard_before", __file__.replace("alias_guard_ab.py", "guard_before_s43.py"))
before = importlib.util.module_from_spec(spec)
spec.loader.exec_module(before)

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
device = parser.parse_args().device
x, y, q = (torch.randn(8, 8, device=device) for _ in range(3))
q = torch.randn(1, 4, 16, device=device)
f = lambda a, b: (a * 2 + b).exp()
mha = torch.nn.MultiheadAttention(16, 2, batch_first=True).to(device).eval()
cases = {"f(x, x)": (f, (x, x)), "f(x, y)": (f, (x, y)), "mha(q, q, q)": (mha, (q, q, q))}
with torch.no_grad():
    for name, (fn, args) in cases.items():
        jitted = thunder.jit(fn)
        jitted(*args)
        jitted(*args)
        fast_fn = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
        entry = fast_fn._lc_fastpath_state.hits[0].entry
        kw = dict(thunder_module=jitted if isinstance(jitted, torch.nn.Module) else None,
                  compile_data=thunder.compile_data(jitted))
        checks = {label: m.build_guard(entry.prologue_traces[-1], args, {}, **kw).check for label, m in
                  (("before", before), ("after", after))}
        for label, check in checks.items():
            assert isinstance(check(args, {}), tuple), label
        samples = {label: [] for label in checks}
        for _ in range(15):
            for label, check in checks.items():
                samples[label].append(min(timeit.repeat(lambda: check(args, {}), number=2000, repeat=1)) / 2000 * 1e6)
        print(name, " ".join(f"{label} min {min(s):.2f} median {statistics.median(s):.2f}" for label, s in samples.items()))

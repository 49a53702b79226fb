"""Session 11's differential search (`../s11_scripts/fuzz_differential.py`) with its tensors on a CUDA device, where
thunder.jit's default executors put the functions' ops into nvFuser regions: the fast path's FusionRegion (layout
reuse, the first layout kept, the hit calling a single region's executor, grad mode left as it is for new outputs)
against upstream's FusionDefinitionWrapper, call by call (outputs bitwise, autograd facts, in-place updates,
exceptions, hits, misses, calls).

Usage: python fuzz_differential_cuda.py [max_examples] [seed] [device]   (device: cuda by default; cpu to try it)
With FUZZ_NO_SHRINK=1 set, the first failing example is reported as found, without shrinking.
"""

import importlib.util
import os
import pathlib
import sys

import hypothesis
import torch

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("fuzz_differential", HERE.parent / "s11_scripts/fuzz_differential.py")
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)
DEVICE = torch.device(sys.argv[3] if len(sys.argv) > 3 else "cuda")


def make_inputs(shape, dtype, requires_grad, layout, aliasing, n, seed):
    # As fuzz_differential.make_inputs, with each tensor moved to DEVICE before it is sliced, transposed or viewed
    # (moving a strided slice would make it contiguous) and before it is marked as requiring grad (a leaf).
    def on_device(*size, seed):
        return fuzz.t(*size, dtype=dtype, seed=seed).to(DEVICE)

    def tensor(s):
        if layout == "contiguous":
            x = on_device(*shape, seed=s)
        elif layout == "column_major":
            x = on_device(*reversed(shape), seed=s).t()
        else:
            x = on_device(shape[0], 2 * shape[1], seed=s)[:, ::2]
        return x.requires_grad_(requires_grad) if requires_grad else x

    if aliasing == "same":
        a = tensor(seed)
        return (a, a, n), {}
    if aliasing == "views":
        base = on_device(2 * shape[0] * shape[1], seed=seed).requires_grad_(requires_grad)
        a, b = base[: shape[0] * shape[1]].view(shape), base[shape[0] * shape[1]:].view(shape)
        return (a, b, n), {}
    return (tensor(seed), tensor(seed + 1), n), {}


fuzz.make_inputs = make_inputs

# How many nvFuser regions the fast callables got (FusionRegion instances).
from thunder.fastpath import nvfuser  # noqa: E402

made = {"regions": 0}
_init = nvfuser.FusionRegion.__init__


def counting_init(self, *args, **kwargs):
    made["regions"] += 1
    _init(self, *args, **kwargs)


nvfuser.FusionRegion.__init__ = counting_init
_check = fuzz.check


def check_and_report(function, cache, pool, order):
    # One line per passing example, so that a run cut short by a time limit still says how far it got.
    try:
        _check(function, cache, pool, order)
    except Exception as e:
        print(f"failed: {function.__name__}, {cache}: {type(e).__name__}: {str(e)[:300]}", flush=True)
        raise
    e = fuzz.examples
    print(f"passed so far: {e['count']} examples, {e['calls']} calls, {e['fast']} served by the guards,"
          f" {made['regions']} FusionRegions", flush=True)


fuzz.check = check_and_report

if os.environ.get("FUZZ_NO_SHRINK"):
    # Report the first failing example as found (shrinking recompiles for every attempt: minutes on a GPU).
    hypothesis.settings.register_profile("no_shrink", phases=[hypothesis.Phase.generate])
    hypothesis.settings.load_profile("no_shrink")

if __name__ == "__main__":
    sys.argv = sys.argv[:3]
    fuzz.main()
    print(f"FusionRegions made: {made['regions']};", f"device {DEVICE}" + (f" ({torch.cuda.get_device_name(DEVICE)})" if DEVICE.type == "cuda" else ""))

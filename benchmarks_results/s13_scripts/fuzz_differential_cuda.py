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
# The search's own make_inputs puts every tensor on this device.
DEVICE = fuzz.DEVICE = torch.device(sys.argv[3] if len(sys.argv) > 3 else "cuda")

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

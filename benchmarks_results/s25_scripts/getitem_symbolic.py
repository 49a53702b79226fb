"""getitem's OpInfo samples through one callable only, under cache "symbolic values": upstream (fastpath=False) or the
fast path (--fast), printing each call's outcome, hits and misses; on CUDA with a synchronize after each call, so
that a device-side assert shows at the call that launched it. Session 25, call D: the OpInfo search's getitem
triggered a device-side assert on CUDA under "symbolic values"; is it upstream's (does it occur without the fast
path)?

Usage: python getitem_symbolic.py [--device cuda] [--fast] [--cache "constant values"] [--seed N]
"""

import argparse
import sys

import torch

import thunder
import thunder.fastpath
from thunder.tests.opinfos import opinfos

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/../s24_scripts")
from opinfo_differential import call_sequence, fresh_copy  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cpu")
parser.add_argument("--fast", action="store_true")
parser.add_argument("--cache", default="symbolic values")
parser.add_argument("--seed", type=int, default=None, help="seed for the samples' random index tensors")
args = parser.parse_args()
if args.seed is not None:
    torch.manual_seed(args.seed)
op = next(o for o in opinfos if o.name == "getitem")
samples = list(op.sample_inputs(args.device, torch.float32, requires_grad=False))
f = thunder.jit(op.op, fastpath=args.fast, cache=args.cache)
for k, (i, nc) in enumerate(call_sequence(samples)):
    a, kw = fresh_copy(samples[i], nc)
    index = a[1] if len(a) > 1 else kw
    shape = tuple(a[0].shape)
    try:
        out = f(*a, **kw)
        if args.device == "cuda":
            torch.cuda.synchronize()
        result = f"returned {tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__}"
    except Exception as e:
        result = f"raised {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    print(f"call {k} sample {i}{' nc' if nc else ''}: x{shape}[{index!r:.60}] -> {result}; "
          f"hits {thunder.cache_hits(f)} misses {thunder.cache_misses(f)}", flush=True)
    if "AcceleratorError" in result:
        break

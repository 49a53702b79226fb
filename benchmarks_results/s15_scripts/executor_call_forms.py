"""Session 15 experiment: does the way the hit calls nvFuser's executor cost more than small_graph.py's
``nvfuser-fec.execute`` row, ``fec.execute(inputs)``? The region binds what ``fd.execute`` would pass:
``functools.partial(fd.fec.execute, device=<index>)`` where ``fd.execute`` passes a device index, else the bound
method itself. Interleaved, for a single-region case: ``fec.execute`` without a device, with the device keyword
(the index ``fd.execute`` passes), through a partial that binds it, the hit's own executor call, the device
positional (if the binding takes it so), and the hit function. Not a runtime change. Medians and minima, µs."""

import argparse
import functools
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../s14_scripts"))
from additivity import warm_hit  # noqa: E402
from hit_breakdown import timed_cases  # noqa: E402


def pieces_of(case):
    jitted, hit, _ = warm_hit(case)
    assert hit.region_call is not None, "not a single nvFuser region"
    inputs = hit.guard.check(case.args, {})[0]
    region_args = tuple(inputs[i] for i in hit.region_call.arg_positions)
    layout, execute, _, fd = hit.region_call.region.prepared
    fec = fd.fec
    device = fd._get_device_index(fd._selected_device)
    print(f"the hit's executor call: {execute!r}")
    print(f"device index fd.execute passes: {device!r}")
    print("fec.execute doc:", (fec.execute.__doc__ or "").strip().splitlines()[:3])
    kw = functools.partial(fec.execute, device=device)
    pieces = {
        "fec.execute(inputs)": lambda: fec.execute(region_args),
        "fec.execute(inputs, device=d)": lambda: fec.execute(region_args, device=device),
        "partial(device=d)(inputs)": lambda: kw(region_args),
        "the hit's executor call": lambda: execute(region_args),
    }
    try:
        fec.execute(region_args, device)
        pieces["fec.execute(inputs, d)"] = lambda: fec.execute(region_args, device)
    except TypeError as e:
        print("positional device refused:", str(e).splitlines()[0])
    reference = execute(region_args)
    for name, fn in pieces.items():
        out = fn()
        assert len(out) == len(reference) and all(torch.equal(a, b) for a, b in zip(out, reference)), name
    pieces["hit function"] = lambda: hit.call(case.args, {})
    pieces["jitted call"] = lambda: jitted(*case.args)
    return pieces


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="issue1657")
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=41)
    opts = parser.parse_args()
    for case, pieces, times in timed_cases("cuda", opts.cases, pieces_of, opts.number, opts.repeats):
        print(f"== {case.name} on cuda, {opts.repeats} x {opts.number} calls")
        print(f"{'piece':<32} {'median':>8} {'min':>8}")
        for piece, samples in times.items():
            print(f"{piece:<32} {statistics.median(samples):8.3f} {min(samples):8.3f}")


if __name__ == "__main__":
    main()

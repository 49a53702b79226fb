"""The two_8x8 hit function (small_graph.py's case) against the same source rewritten by hand: the arguments unpacked as
``a, b = args`` in place of the length check and two subscripts ("unpack"), the default dtype compared with a bound
constant ("f32"), both ("both"); interleaved, 21 x 20,000 calls, min and median µs. Run from the repository root:

    .venv/bin/python benchmarks_results/s30_scripts/hit_micro_rewrites.py
"""
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hit_line_costs import time_variants, two_8x8_hit  # noqa: E402


def main():
    jitted, hit, args = two_8x8_hit()
    full = hit.source
    unpack = full.replace("        if not (len(args) == 2): return __MISS\n", "").replace(
        "        a = args[0]\n        b = args[1]\n", "        a, b = args\n"
    )
    sources = {
        "full": full,
        "unpack": unpack,
        "f32": full.replace("is not torch.float32", "is not __f32"),
        "both": unpack.replace("is not torch.float32", "is not __f32"),
    }
    assert len(set(sources.values())) == 4, "the generated source no longer has the lines that the variants rewrite"
    samples = time_variants(hit, sources, args, repeats=21, extra_globals={"__f32": torch.float32})
    for name, s in samples.items():
        print(name, round(min(s), 3), round(statistics.median(s), 3))


if __name__ == "__main__":
    main()

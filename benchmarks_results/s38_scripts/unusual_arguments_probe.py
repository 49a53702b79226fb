"""Session 38: a differential probe of unusual arguments (this CPU). Each call sequence runs through
test_overhead.run_differential (upstream and the fast path side by side: outputs bitwise, hits, misses and calls).

    .venv/bin/python benchmarks_results/s38_scripts/unusual_arguments_probe.py
"""
import enum
import math
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "thunder" / "tests"))
from test_overhead import run_differential, Call, t
import thunder

class Color(enum.Enum):
    RED = 1
    BLUE = 2

cases = {
 "dtype arg": (lambda a, d: a.to(d), [lambda: ((t(2), torch.float64), {}), lambda: ((t(2), torch.float64), {}), lambda: ((t(2), torch.float16), {}), lambda: ((t(2), torch.float64), {})]),
 "device arg": (lambda a, d: a.to(d), [lambda: ((t(2), torch.device("cpu")), {}), lambda: ((t(2), "cpu"), {}), lambda: ((t(2), torch.device("cpu")), {})]),
 "size arg": (lambda a, s: a.reshape(s), [lambda: ((t(6), torch.Size([2, 3])), {}), lambda: ((t(6), torch.Size([2, 3])), {}), lambda: ((t(6), torch.Size([3, 2])), {}), lambda: ((t(6), (2, 3)), {})]),
 "none arg": (lambda a, n: a if n is None else a + n, [lambda: ((t(2), None), {}), lambda: ((t(2), None), {}), lambda: ((t(2), 1), {}), lambda: ((t(2), None), {})]),
 "nan": (lambda a, x: a + x, [lambda: ((t(2), math.nan), {}), lambda: ((t(2), math.nan), {}), lambda: ((t(2), math.inf), {}), lambda: ((t(2), math.inf), {}), lambda: ((t(2), -math.inf), {})]),
 "complex scalar": (lambda a, x: a * x, [lambda: ((t(2), 1+2j), {}), lambda: ((t(2), 1+2j), {}), lambda: ((t(2), 1+3j), {})]),
 "float vs int": (lambda a, x: a * x, [lambda: ((t(2), 2), {}), lambda: ((t(2), 2.0), {}), lambda: ((t(2), 2), {}), lambda: ((t(2), True), {})]),
 "enum": (lambda a, c: a * (2 if c is Color.RED else 3), [lambda: ((t(2), Color.RED), {}), lambda: ((t(2), Color.RED), {}), lambda: ((t(2), Color.BLUE), {}), lambda: ((t(2), Color.RED), {})]),
 "ellipsis idx": (lambda a, i: a[i], [lambda: ((t(2, 3), (Ellipsis, 0)), {}), lambda: ((t(2, 3), (Ellipsis, 0)), {}), lambda: ((t(2, 3), (Ellipsis, 1)), {})]),
 "tensor idx": (lambda a, i: a[i], [lambda: ((t(4), torch.tensor([0, 2])), {}), lambda: ((t(4), torch.tensor([0, 2])), {}), lambda: ((t(4), torch.tensor([1, 3])), {})]),
 "0-dim tensor": (lambda a, s: a * s, [lambda: ((t(3), torch.tensor(2.0)), {}), lambda: ((t(3), torch.tensor(2.0)), {}), lambda: ((t(3), torch.tensor(3.0)), {}), lambda: ((t(3), torch.tensor(3, dtype=torch.int64)), {})]),
 "bool tensor mask": (lambda a, m: a[m], [lambda: ((t(4), torch.tensor([True, False, True, False])), {}), lambda: ((t(4), torch.tensor([True, True, True, False])), {})]),
 "defaults": (lambda a, b=2, *, c=3: a * b + c, [lambda: ((t(2),), {}), lambda: ((t(2),), {}), lambda: ((t(2), 2), {}), lambda: ((t(2),), {"c": 3}), lambda: ((t(2),), {"c": 4})]),
 "varargs": (lambda *xs: sum(x.sum() for x in xs), [lambda: ((t(2), t(2)), {}), lambda: ((t(2), t(2)), {}), lambda: ((t(2), t(2), t(2)), {}), lambda: ((t(2),), {})]),
 "int list": (lambda a, l: a.permute(l), [lambda: ((t(2, 3), [1, 0]), {}), lambda: ((t(2, 3), [1, 0]), {}), lambda: ((t(2, 3), [0, 1]), {})]),
 "negative zero float": (lambda a, x: a / x, [lambda: ((t(2), 0.0), {}), lambda: ((t(2), -0.0), {}), lambda: ((t(2), 0.0), {})]),
 "string": (lambda a, s: a * 2 if s == "x" else a, [lambda: ((t(2), "x"), {}), lambda: ((t(2), "x"), {}), lambda: ((t(2), "y"), {}), lambda: ((t(2), "x"), {})]),
 "dict kwargs order": (lambda **kw: kw["a"] - kw["b"], [lambda: ((), {"a": t(2), "b": t(2, seed=1)}), lambda: ((), {"b": t(2, seed=1), "a": t(2)}), lambda: ((), {"a": t(2), "b": t(2, seed=1)})]),
 "uint8/int16": (lambda a: a + 1, [lambda: ((t(2).to(torch.uint8),), {}), lambda: ((t(2).to(torch.uint8),), {}), lambda: ((t(2).to(torch.int16),), {}), lambda: ((t(2).to(torch.uint8),), {})]),
 "complex tensor": (lambda a: a * 2, [lambda: ((t(2, dtype=torch.complex64),), {}), lambda: ((t(2, dtype=torch.complex64),), {}), lambda: ((t(2, dtype=torch.complex128),), {})]),
 "channels_last": (lambda a: a + 1, [lambda: ((t(1, 2, 3, 3).to(memory_format=torch.channels_last),), {}), lambda: ((t(1, 2, 3, 3),), {}), lambda: ((t(1, 2, 3, 3).to(memory_format=torch.channels_last),), {})]),
 "expanded": (lambda a: a + 1, [lambda: ((t(1, 3).expand(4, 3),), {}), lambda: ((t(4, 3),), {}), lambda: ((t(1, 3).expand(4, 3),), {})]),
 "inplace on view arg": (lambda a: a.add_(1), [lambda: ((t(4, 4)[1:3],), {}), lambda: ((t(4, 4)[1:3],), {}), lambda: ((t(2, 4),), {})]),
 "same tensor twice inplace": (lambda a, b: a.mul_(b), [lambda: (lambda x: ((x, x), {}))(t(3)), lambda: (lambda x: ((x, x), {}))(t(3)), lambda: ((t(3), t(3)), {}), lambda: (lambda x: ((x, x), {}))(t(3))]),
}
bad = 0
for name, (fn, makes) in cases.items():
    try:
        up, fast = run_differential(fn, [Call(m) for m in makes])
        print(f"ok   {name}: hits/misses {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}, guarded entries {len(fast._lc_fastpath_state.hits)}, kept on upstream's path for: {fast._lc_fastpath_state.unsupported[:1]}")
    except Exception as e:
        bad += 1
        print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]}")
print("failures", bad)

"""Session 41: module state changed between calls of a jitted module by the usual nn.Module APIs (load_state_dict,
requires_grad_, a parametrization, buffers replaced, register_buffer / register_parameter after jit, a parameter set to
None), upstream (fastpath=False) against the fast path. Each case prints, per system, the first output values (or the
exception), the hits and misses after every call, and whether the last output equals eager's; both lines of a case
should read the same.

    .venv/bin/python benchmarks_results/s41_scripts/module_state_probe.py
"""
import copy
import os
import sys

import torch
import torch.nn.utils.parametrize as P

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


class WithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.register_buffer("shift", torch.ones(3))

    def forward(self, x):
        out = self.lin(x) + self.shift
        if getattr(self, "extra", None) is not None:
            out = out + self.extra
        return out


class Doubled(torch.nn.Module):
    def forward(self, w):
        return w * 2


def replace_buffer(m):
    m.shift = torch.full((3,), 5.0)


def load_state(m):
    sd = {k: v + 1 for k, v in m.state_dict().items()}
    m.load_state_dict(sd)


changes = {
    "load_state_dict": load_state,
    "requires_grad_(False)": lambda m: m.requires_grad_(False),
    "buffer replaced": replace_buffer,
    "buffer updated in place": lambda m: m.shift.add_(2),
    "register_buffer after jit": lambda m: m.register_buffer("extra", torch.full((3,), 7.0)),
    "register_parameter after": lambda m: m.register_parameter("extra", torch.nn.Parameter(torch.full((3,), 7.0))),
    "bias set to None": lambda m: setattr(m.lin, "bias", None),
    "parametrization added": lambda m: P.register_parametrization(m.lin, "weight", Doubled()),
    "lin.weight.data replaced": lambda m: setattr(m.lin.weight, "data", torch.zeros(3, 3)),
    "zero_grad": lambda m: m.zero_grad(),
}
x = T.t(2, 3)
for name, change in changes.items():
    torch.manual_seed(0)
    model = WithBuffer()
    for fastpath in (False, True):
        m = thunder.jit(copy.deepcopy(model), fastpath=fastpath)
        seen = []
        for i in range(4):
            if i == 2:
                try:
                    change(m)  # on the ThunderModule, as a user would
                except Exception as e:
                    seen.append(f"change raised {type(e).__name__}: {str(e)[:60]}")
            try:
                with torch.no_grad():
                    out = m(x)
                seen.append(([round(v, 4) for v in out.flatten()[:2].tolist()], T.hits_misses(m)))
            except Exception as e:
                seen.append((f"raised {type(e).__name__}: {str(e)[:60]}", T.hits_misses(m)))
        with torch.no_grad():
            try:
                eager_same = torch.equal(m._model(x), out)
            except Exception as e:
                eager_same = f"eager raised {type(e).__name__}"
        print(f"{name:26s} fastpath={fastpath!s:5s} {seen} last==eager {eager_same}")

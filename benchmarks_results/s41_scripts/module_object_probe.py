"""Session 41: a jitted module used as an object (the fast path turns a ThunderModule into a FastThunderModule):
copy.deepcopy, pickling, state_dict round trips, named_parameters, repr, nn.Module.apply, clip_grad_norm_, a jitted
module inside an eager module, and calls after each. Upstream (fastpath=False) against the fast path on this CPU;
each line prints, per system, the outcome of the operation and of a call afterwards (first values, hits/misses of the
object called); both lines of a case should read the same.

    .venv/bin/python benchmarks_results/s41_scripts/module_object_probe.py
"""
import copy
import io
import os
import pickle
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


def r(t):
    return [round(v, 4) for v in t.flatten()[:2].tolist()]


def attempt(fn):
    try:
        return fn()
    except Exception as e:
        return f"raised {type(e).__name__}: {str(e)[:70]}"


def call(m, x):
    return attempt(lambda: (r(m(x)), T.hits_misses(m) if hasattr(m, "_lc_cs") else None))


x = T.t(2, 4)
for fastpath in (False, True):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    m = thunder.jit(model, fastpath=fastpath)
    m(x), m(x)
    out = [f"fastpath={fastpath}"]
    out.append(("repr", repr(m).splitlines()[0], "type name", type(m).__name__))
    c = attempt(lambda: copy.deepcopy(m))
    out.append(("deepcopy", c if isinstance(c, str) else call(c, x), call(m, x)))
    p = attempt(lambda: pickle.loads(pickle.dumps(m)))
    out.append(("pickle", p if isinstance(p, str) else call(p, x)))
    buf = io.BytesIO()
    sd = attempt(lambda: (torch.save(m.state_dict(), buf), sorted(m.state_dict()))[1])
    out.append(("state_dict keys", sd))
    buf.seek(0)
    loaded = attempt(lambda: m.load_state_dict({k: v * 2 for k, v in torch.load(buf).items()}))
    out.append(("load_state_dict", str(loaded)[:60], call(m, x)))
    out.append(("named_parameters", [n for n, _ in m.named_parameters()]))
    out.append(("apply(zero bias)", attempt(lambda: str(type(m.apply(lambda mod: getattr(mod, "bias", None) is not None
                                                                     and torch.nn.init.zeros_(mod.bias)))))[:40],
                call(m, x)))
    xg = T.t(2, 4)
    loss = attempt(lambda: m(xg.requires_grad_()).sum().backward())
    out.append(("clip_grad_norm_", attempt(lambda: round(float(torch.nn.utils.clip_grad_norm_(m.parameters(), 0.1)), 4))))

    class Outer(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x) * 2

    outer = Outer(m)
    out.append(("inside an eager module", attempt(lambda: r(outer(x))), T.hits_misses(m)))
    out.append(("eval/train", attempt(lambda: (m.eval(), call(m, x), m.train(), call(m, x))[1::2])))
    out.append(("to(float64)", attempt(lambda: r(m.to(torch.float64)(x.double()))), T.hits_misses(m)))
    print(*out, sep="\n  ")

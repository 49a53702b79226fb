"""Session 39: a differential probe of a small training loop with changes between steps (this CPU). Upstream's and the
fast path's copies of one module take the same steps: forward (test_overhead.compare_call: outputs bitwise, hits,
misses, calls), then backward of the output's sum, then an SGD step; after every step their gradients, parameters
and buffers are compared bitwise.

    .venv/bin/python benchmarks_results/s39_scripts/training_loop_probe.py
"""
import copy
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "thunder" / "tests"))
from test_overhead import Call, assert_bitwise, compare_call, t  # noqa: E402
import thunder  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 8)
        self.norm = torch.nn.BatchNorm1d(8)
        self.b = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.b(torch.tanh(self.norm(self.a(x))))


def freeze_a(m):
    m.a.requires_grad_(False)


def unfreeze_a(m):
    m.a.requires_grad_(True)


def eval_mode(m):
    m.eval()


def train_mode(m):
    m.train()


steps = [None, None, freeze_a, None, unfreeze_a, None, eval_mode, None, train_mode, None, "no_grad", "no_grad", None]
torch.manual_seed(0)
net = Net()
up = thunder.jit(copy.deepcopy(net), fastpath=False)
fast = thunder.jit(copy.deepcopy(net), fastpath=True)
opts = {m: torch.optim.SGD(m.parameters(), lr=0.1) for m in (up, fast)}
bad = 0
for i, step in enumerate(steps):
    try:
        for m in (up, fast):
            if callable(step):
                step(m._model)
        grad_ctx = torch.no_grad if step == "no_grad" else torch.enable_grad
        x = t(5, 4, seed=i)
        compare_call(up, fast, Call(lambda: ((x.clone(),), {}), ctx=grad_ctx), i)
        if step != "no_grad":
            for m in (up, fast):
                opts[m].zero_grad()
                m(x.clone()).sum().backward()
                opts[m].step()
            assert_bitwise({n: p.grad for n, p in up.named_parameters()}, {n: p.grad for n, p in fast.named_parameters()})
        assert_bitwise(dict(up.named_parameters()), dict(fast.named_parameters()))
        assert_bitwise(dict(up.named_buffers()), dict(fast.named_buffers()))
        print(f"ok   step {i} ({getattr(step, '__name__', step)}): hits/misses {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}")
    except Exception as e:
        bad += 1
        print(f"FAIL step {i} ({getattr(step, '__name__', step)}): {type(e).__name__}: {str(e)[:300]}")
print("failures", bad)

"""Session 40: a differential probe of changes to the *inner* submodules of a jitted model between calls, which
neither test_overhead.py nor session 39's module_changes_probe.py makes (this CPU): hooks registered on or removed
from a submodule after the first call, a submodule's forward replaced on the instance, one submodule alone put in
eval mode, and a submodule's parameter frozen alone. Each sequence changes upstream's and the fast path's copies
alike; test_overhead.compare_call checks every call (outputs bitwise, views and autograd history, inputs, hits,
misses, calls, exception types), and parameters and buffers are compared bitwise after it.

    .venv/bin/python benchmarks_results/s40_scripts/inner_module_changes_probe.py ["symbolic values"]
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
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)
        self.norm = torch.nn.BatchNorm1d(4)

    def forward(self, x):
        return self.b(torch.relu(self.norm(self.a(x))))


def hook_on_a(m):
    m.a.register_forward_hook(lambda mod, args, out: out * 2)


def pre_hook_on_b(m):
    m.b.register_forward_pre_hook(lambda mod, args: (args[0] + 1,))


def remove_hooks(m):
    for sub in m.modules():
        sub._forward_hooks.clear()
        sub._forward_pre_hooks.clear()


def forward_of_a_replaced(m):
    linear = m.a
    m.a.forward = lambda x: torch.nn.functional.linear(x, linear.weight) * 3


def norm_alone_eval(m):
    m.norm.eval()


def freeze_a_weight(m):
    m.a.weight.requires_grad_(False)


def make_x():
    return lambda: ((t(3, 4),), {})


x = make_x()
sequences = {
    "a forward hook on a submodule after jit": [(None, x), (None, x), (hook_on_a, x), (None, x)],
    "a forward pre-hook on a submodule after jit": [(None, x), (None, x), (pre_hook_on_b, x), (None, x)],
    "submodule hooks from the start, removed later": [(hook_on_a, x), (pre_hook_on_b, x), (None, x), (remove_hooks, x), (None, x)],
    "a submodule's forward replaced on the instance": [(None, x), (None, x), (forward_of_a_replaced, x), (None, x)],
    "one submodule alone in eval mode": [(None, x), (None, x), (norm_alone_eval, x), (None, x)],
    "one submodule's weight frozen alone": [(None, x), (None, x), (freeze_a_weight, x), (None, x)],
}

cache = sys.argv[1] if len(sys.argv) > 1 else "constant values"  # or "symbolic values"
print("cache:", cache)
bad = 0
for name, steps in sequences.items():
    try:
        torch.manual_seed(0)
        net = Net()
        up = thunder.jit(copy.deepcopy(net), fastpath=False, cache=cache)
        fast = thunder.jit(copy.deepcopy(net), fastpath=True, cache=cache)
        served = []
        for i, (change, make) in enumerate(steps):
            for m in (up, fast):
                if change is not None:
                    change(m._model)
            served.append(compare_call(up, fast, Call(make), i))
            assert_bitwise(dict(up.named_parameters()), dict(fast.named_parameters()))
            assert_bitwise(dict(up.named_buffers()), dict(fast.named_buffers()))
        print(f"ok   {name}: hits/misses {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}, "
              f"served by a guard: {''.join('y' if s else '.' for s in served)}")
    except Exception as e:
        bad += 1
        print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]}")
print("failures", bad)

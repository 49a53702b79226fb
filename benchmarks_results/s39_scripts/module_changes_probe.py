"""Session 39: a differential probe of changes made to a jitted module between calls that test_overhead.py does not
make (this CPU). Each sequence changes upstream's and the fast path's copies of one module alike, and
test_overhead.compare_call checks after every call: outputs bitwise, views and autograd history, inputs, hits,
misses, calls, exception types; the two modules' parameters and buffers are compared bitwise as well.

    .venv/bin/python benchmarks_results/s39_scripts/module_changes_probe.py ["symbolic values"]
"""
import copy
import pathlib
import sys

import torch
import torch.nn.utils.parametrize as parametrize

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


class Symmetric(torch.nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(0, 1)


def to_double(m):
    m.double()


def no_grad_params(m):
    m.requires_grad_(False)


def tie_weights(m):
    m.b.weight = m.a.weight


def parametrize_a(m):
    parametrize.register_parametrization(m.a, "weight", Symmetric())


def assign_state_dict(m):
    torch.manual_seed(1)
    m.load_state_dict(Net().state_dict(), assign=True)


def new_buffer(m):
    m.norm.running_mean = torch.ones(4)


def zero_grad(m):
    m.zero_grad(set_to_none=False)


def eval_mode(m):
    m.eval()


def half_momentum(m):
    m.norm.momentum = 0.5


class on_the_thunder_module:
    # a change applied to the jitted ThunderModule itself, not to the model it wraps
    def __init__(self, change):
        self.change = change


def float_again(m):
    m.float()


def to_meta(m):
    m.to("meta")


def make_x(dtype=torch.float32):
    return lambda: ((t(3, 4, dtype=dtype),), {})


sequences = {
    "module.double() between calls": [(None, make_x()), (None, make_x()), (to_double, make_x()), (None, make_x(torch.float64)),
                                      (None, make_x(torch.float64))],
    "requires_grad_(False) on every parameter": [(None, make_x()), (None, make_x()), (no_grad_params, make_x()), (None, make_x())],
    "weights tied after jit": [(None, make_x()), (None, make_x()), (tie_weights, make_x()), (None, make_x())],
    "a parametrization registered after jit": [(None, make_x()), (None, make_x()), (parametrize_a, make_x()), (None, make_x())],
    "load_state_dict(assign=True)": [(None, make_x()), (None, make_x()), (assign_state_dict, make_x()), (None, make_x())],
    "a buffer replaced": [(None, make_x()), (None, make_x()), (new_buffer, make_x()), (None, make_x())],
    "zero_grad then eval": [(None, make_x()), (zero_grad, make_x()), (eval_mode, make_x()), (None, make_x())],
    "a submodule's float attribute changed": [(None, make_x()), (None, make_x()), (half_momentum, make_x()), (None, make_x())],
    "module.double() then float() again": [(None, make_x()), (None, make_x()), (to_double, make_x(torch.float64)),
                                            (float_again, make_x()), (None, make_x())],
    "the ThunderModule's double()": [(None, make_x()), (None, make_x()), (on_the_thunder_module(to_double), make_x(torch.float64)),
                                     (None, make_x(torch.float64)), (None, make_x(torch.float64)), (None, make_x())],
    "the ThunderModule's requires_grad_(False)": [(None, make_x()), (None, make_x()), (on_the_thunder_module(no_grad_params), make_x()),
                                                  (None, make_x())],
    "the ThunderModule's load_state_dict(assign=True)": [(None, make_x()), (None, make_x()), (on_the_thunder_module(assign_state_dict), make_x()),
                                                         (None, make_x())],
    "the ThunderModule's zero_grad then eval": [(None, make_x()), (on_the_thunder_module(zero_grad), make_x()),
                                                (on_the_thunder_module(eval_mode), make_x()), (None, make_x())],
    "module.to('meta')": [(None, make_x()), (None, make_x()), (to_meta, make_x()), (None, make_x())],
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
        for i, (change, make) in enumerate(steps):
            for m in (up, fast):
                if isinstance(change, on_the_thunder_module):
                    change.change(m)
                elif change is not None:
                    change(m._model)
            compare_call(up, fast, Call(make), i)
            assert_bitwise(dict(up.named_parameters()), dict(fast.named_parameters()))
            assert_bitwise(dict(up.named_buffers()), dict(fast.named_buffers()))
        print(f"ok   {name}: hits/misses {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}")
    except Exception as e:
        bad += 1
        print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]}")
print("failures", bad)

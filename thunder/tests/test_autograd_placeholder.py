"""The tensor that links a jitted call's two autograd functions (split autograd, ``torch_autograd.py``) is made without
running a random-number kernel: ``torch.randn`` on the meta device runs its decompositions on every call.
"""

from __future__ import annotations

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import thunder


class RecordOps(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func)
        return func(*args, **(kwargs or {}))


def test_training_call_makes_no_random_placeholder():
    f = lambda a, b: (a.sin() * b).sum()
    jf = thunder.jit(f)
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(3, 4)
    jf(a, b).backward()  # compiles; the call below hits the cache
    a.grad = None
    with RecordOps() as recorded:
        out = jf(a, b)
        out.backward()
    random_ops = [op for op in recorded.ops if op.overloadpacket in (torch.ops.aten.randn, torch.ops.aten.normal_)]
    assert random_ops == []

    a_eager = a.detach().clone().requires_grad_()
    expected = f(a_eager, b)
    expected.backward()
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(a.grad, a_eager.grad)

"""Training under CUDA graphs (``thunder.transforms.cudagraph.CUDAGraphTransform``) on the fast path against Thunder
with the same transform: losses and parameters bitwise over several steps, a shape change that misses as Thunder's
does, dropout's random numbers, and CUDA memory that does not grow from step to step. CUDA and nvFuser only.
"""

from __future__ import annotations

import copy

import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import requiresCUDA, requiresNVFuser

from fastpath_harness import assert_bitwise, hits_misses


class Classifier(torch.nn.Module):
    """Two linear layers with GELU and dropout between them, and the cross-entropy loss: a training step's graph."""

    def __init__(self, dropout: float = 0.0):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Linear(32, 64)
        self.b = torch.nn.Linear(64, 8)
        self.dropout = torch.nn.Dropout(dropout)

    def forward(self, x, y):
        return torch.nn.functional.cross_entropy(self.b(self.dropout(torch.nn.functional.gelu(self.a(x)))), y)


def graphed_pair(module):
    from thunder.transforms.cudagraph import CUDAGraphTransform

    pair = {}
    for fastpath in (False, True):
        model = copy.deepcopy(module).cuda()
        jitted = thunder.jit(model, fastpath=fastpath, transforms=[CUDAGraphTransform()])
        pair[fastpath] = (model, jitted, torch.optim.AdamW(model.parameters(), lr=1e-2, fused=True))
    return pair


def batch(n: int, seed: int = 0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(n, 32, device="cuda", generator=g), torch.randint(0, 8, (n,), device="cuda", generator=g)


def step(system, x, y, seed=None):
    model, jitted, optimizer = system
    if seed is not None:
        torch.manual_seed(seed)
    loss = jitted(x, y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach().clone()


def assert_same_state(pair):
    (m_up, j_up, _), (m_fast, j_fast, _) = pair[False], pair[True]
    for p_up, p_fast in zip(m_up.parameters(), m_fast.parameters(), strict=True):
        assert_bitwise(p_up, p_fast)
    assert hits_misses(j_up) == hits_misses(j_fast)


@requiresCUDA
@requiresNVFuser
def test_graphed_training_matches_upstream_bitwise():
    pair = graphed_pair(Classifier())
    assert thunder.fastpath.is_fast(pair[True][1]) and not thunder.fastpath.is_fast(pair[False][1])
    for i in range(6):
        x, y = batch(16, seed=i)
        assert_bitwise(step(pair[False], x, y), step(pair[True], x, y))
        assert_same_state(pair)
    assert thunder.cache_hits(pair[True][1]) == 5


@requiresCUDA
@requiresNVFuser
def test_shape_change_misses_and_gives_upstreams_results():
    pair = graphed_pair(Classifier())
    for n in (16, 16, 8, 8, 16):
        x, y = batch(n, seed=n)
        assert_bitwise(step(pair[False], x, y), step(pair[True], x, y))
        assert_same_state(pair)
    assert hits_misses(pair[True][1]) == (3, 2)
    reasons = thunder.fastpath.recompile_reasons(pair[True][1])
    assert "shape" in str(reasons[-1])


@requiresCUDA
@requiresNVFuser
def test_dropout_random_numbers_match_upstream():
    pair = graphed_pair(Classifier(dropout=0.5))
    for i in range(4):
        x, y = batch(16, seed=i)
        assert_bitwise(step(pair[False], x, y, seed=100 + i), step(pair[True], x, y, seed=100 + i))
        assert_same_state(pair)


@requiresCUDA
@requiresNVFuser
def test_cuda_memory_does_not_grow_over_steps():
    pair = graphed_pair(Classifier())
    x, y = batch(16)
    for _ in range(5):
        step(pair[True], x, y)
    torch.cuda.synchronize()
    settled = torch.cuda.memory_allocated()
    for _ in range(50):
        step(pair[True], x, y)
    torch.cuda.synchronize()
    assert torch.cuda.memory_allocated() <= settled

"""ThunderFX on the fast path against ThunderFX without it: what its backend returns to Dynamo (NOTE "The split
module's call" in ``thunder/fastpath/thunderfx.py``), outputs and gradients bitwise, each region's hits and misses,
and the hooks that fire on each call."""

from __future__ import annotations

import copy

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.dynamo import ThunderCompiler, thunderfx

from fastpath_harness import assert_bitwise, hits_misses, t


@pytest.fixture(autouse=True)
def fresh_dynamo():
    # Dynamo keeps its compiled entries and automatic-dynamic state on each frame's code object, across
    # torch.compile calls, and runs a frame eagerly after config.recompile_limit entries: without a reset, a test
    # could find Block.forward compiled with dynamic shapes, or not compiled at all.
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Block(torch.nn.Module):
    """Two linear layers with a graph break between them: Dynamo captures two graphs."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = torch.nn.Linear(6, 6)
        self.b = torch.nn.Linear(6, 6)

    def forward(self, x):
        y = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return torch.nn.functional.gelu(self.b(y)).sum(-1)


def compiled_pair(module):
    """ThunderFX without and with the fast path, each on its own copy of ``module``."""
    return {fastpath: thunderfx(copy.deepcopy(module), fastpath=fastpath) for fastpath in (False, True)}


def regions(compiled):
    return [fn for info in compiled._backend.subgraph_infos for fn in info.thunder_compiled_fns]


def split_modules(compiled):
    return [info.split_graph_module for info in compiled._backend.subgraph_infos]


def test_backend_returns_the_lean_call_only_on_the_fast_path():
    seen = {}
    for fastpath in (False, True):
        backend = ThunderCompiler(fastpath=fastpath)
        gm = torch.fx.symbolic_trace(lambda x: torch.sin(x) + 1)
        seen[fastpath] = backend(gm, [t(3)])
    assert isinstance(seen[False], torch.fx.GraphModule)
    assert not isinstance(seen[True], torch.nn.Module)
    assert seen[True].split_module is not None and isinstance(seen[True].split_module, torch.fx.GraphModule)
    assert_bitwise(seen[False](t(3)), seen[True](t(3)))


def test_thunderfx_subgraphs_take_the_fast_path():
    def f(x, y):
        return torch.sin(x) * y + 1

    compiled = {fastpath: thunderfx(f, fastpath=fastpath) for fastpath in (False, True)}
    for shape in [(4,), (4,), (4,), (2, 3), (2, 3)]:
        outs = {fastpath: c(t(*shape), t(*shape, seed=1)) for fastpath, c in compiled.items()}
        assert_bitwise(outs[False], outs[True])
    jitted = {fastpath: regions(c) for fastpath, c in compiled.items()}
    assert jitted[True] and all(thunder.fastpath.is_fast(fn) for fn in jitted[True])
    assert not any(thunder.fastpath.is_fast(fn) for fn in jitted[False])
    assert [hits_misses(fn) for fn in jitted[True]] == [hits_misses(fn) for fn in jitted[False]]
    assert sum(thunder.cache_hits(fn) for fn in jitted[True]) >= 2


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_outputs_gradients_and_region_counts_match_upstream(grad):
    compiled = compiled_pair(Block())
    for shape in [(4, 6), (4, 6), (4, 6), (2, 3, 6), (2, 3, 6), (4, 6)]:
        outs, grads = {}, {}
        for fastpath, c in compiled.items():
            x = t(*shape, requires_grad=grad)
            with torch.set_grad_enabled(grad):
                outs[fastpath] = c(x)
            if grad:
                outs[fastpath].sum().backward()
                grads[fastpath] = x.grad
        assert_bitwise(outs[False], outs[True])
        if grad:
            assert_bitwise(grads[False], grads[True])
        assert [hits_misses(fn) for fn in regions(compiled[True])] == [
            hits_misses(fn) for fn in regions(compiled[False])
        ]
    assert len(regions(compiled[True])) >= 2  # the graph break: a region in each graph
    assert all(thunder.fastpath.is_fast(fn) for fn in regions(compiled[True]))
    assert sum(thunder.cache_hits(fn) for fn in regions(compiled[True])) >= 4


def hook_log(compiled, x, install):
    """The modules whose hooks fired during one call, by class name, with hooks put in place by ``install``."""
    log = []
    handles = install(compiled, log)
    try:
        out = compiled(x)
    finally:
        for h in handles:
            h.remove()
    # A ThunderModule on the fast path is a FastThunderModule, a subclass of ThunderModule.
    return out, [name.replace("FastThunderModule", "ThunderModule") for name in log]


def global_hooks(compiled, log):
    return [
        torch.nn.modules.module.register_module_forward_pre_hook(lambda m, a: log.append(type(m).__name__)),
        torch.nn.modules.module.register_module_forward_hook(lambda m, a, o: log.append("after " + type(m).__name__)),
    ]


def split_module_hooks(compiled, log):
    # A forward hook that changes the outputs: the lean call must hand the call to nn.Module.__call__.
    def doubled(module, args, out):
        log.append("split")
        return tuple(o * 2 for o in out) if isinstance(out, tuple) else out * 2

    return [m.register_forward_hook(doubled) for m in split_modules(compiled)]


def region_hooks(compiled, log):
    return [fn.register_forward_pre_hook(lambda m, a: log.append("region")) for fn in regions(compiled)]


@pytest.mark.parametrize("install", [global_hooks, split_module_hooks, region_hooks])
@pytest.mark.filterwarnings("ignore:Using `torch.compile\\(module\\)` when there are global hooks")
def test_hooks_fire_as_upstream(install):
    compiled = compiled_pair(Block())
    x = t(4, 6)
    for fastpath in (False, True):
        compiled[fastpath](x), compiled[fastpath](x)  # compiled, and a hit
    assert len(regions(compiled[False])) == len(regions(compiled[True])) == 2
    for _ in range(2):
        (out_up, log_up), (out_fast, log_fast) = (hook_log(compiled[f], x, install) for f in (False, True))
        assert_bitwise(out_up, out_fast)
        assert log_up == log_fast and log_up
        # and without the hooks again
        assert_bitwise(compiled[False](x), compiled[True](x))
    assert [hits_misses(fn) for fn in regions(compiled[True])] == [hits_misses(fn) for fn in regions(compiled[False])]


def test_a_tiny_llama_through_thunderfx_like_upstream():
    # Hugging Face Llama (grouped-query attention, rotary embeddings, RMSNorm) built from a tiny config: inference in
    # two sequence lengths and training steps, ThunderFX with the fast path bitwise as without it, the regions' hits and
    # misses the same, and the second call of each shape served by the regions' guards.
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(
        num_hidden_layers=1, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
        vocab_size=64, max_position_embeddings=32, attn_implementation="sdpa",
    )  # fmt: skip
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(config)
    tokens = {n: torch.randint(0, 64, (2, n), generator=torch.Generator().manual_seed(n)) for n in (8, 12)}
    eager = copy.deepcopy(model)
    with torch.no_grad():
        expected = {n: eager(idx).logits for n, idx in tokens.items()}
    pair = compiled_pair(model.eval())
    for n in (8, 12, 8, 12):
        with torch.no_grad():
            up, fast = (pair[fastpath](tokens[n]).logits for fastpath in (False, True))
        assert_bitwise(fast, up)
        torch.testing.assert_close(fast, expected[n])
    fast_regions = regions(pair[True])
    assert fast_regions and [hits_misses(r) for r in regions(pair[False])] == [hits_misses(r) for r in fast_regions]
    assert all(thunder.fastpath.stats(r).served_by_guards == thunder.fastpath.stats(r).hits for r in fast_regions)

    torch._dynamo.reset()
    models = {fastpath: copy.deepcopy(model).train() for fastpath in (False, True)}
    # NOTE: Where nvFuser is installed, Thunder's nvFuser executor claims the loss's cross_entropy on these CPU tensors
    # and then cannot run it ("nv_cross_entropy_fwd outside of a tracing context"), with or without the fast path.
    cpu_executors = [ex for ex in thunder.get_default_executors() if ex.name != "nvfuser"]
    steps = {
        fastpath: thunderfx(models[fastpath], fastpath=fastpath, executors=cpu_executors) for fastpath in (False, True)
    }
    optimizers = {fastpath: torch.optim.AdamW(models[fastpath].parameters(), lr=1e-3) for fastpath in (False, True)}
    losses = {False: [], True: []}
    for _ in range(3):
        for fastpath in (False, True):
            loss = steps[fastpath](tokens[8], labels=tokens[8]).loss
            loss.backward()
            optimizers[fastpath].step()
            optimizers[fastpath].zero_grad(set_to_none=True)
            losses[fastpath].append(loss.detach())
    assert_bitwise(losses[True], losses[False])
    assert_bitwise(list(models[True].parameters()), list(models[False].parameters()))

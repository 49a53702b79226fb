"""A differential search over Thunder's transforms and executor choices: the fast path against upstream where a
transform rewrites the prologue (PrunePrologueChecks, ExtractionOnlyPrologueTransform), the computation
(ConstantFolding, CUDAGraphTransform on CUDA, the torch.compile executor), the cache ("symbolic values") or the
module (MaterializationTransform of a module made on the meta device). Not part of CI.

Each configuration jits a function and a module twice (upstream: fastpath=False; fast), with the same transforms,
and runs the same steps on both: calls that must hit or miss (new shapes, strides, dtypes, Python numbers,
requires_grad, grad mode, aliased inputs), and for the module also in-place parameter updates and train/eval
switches. After every call: outcome or exception type, outputs bitwise with their autograd facts, inputs bitwise,
hits, misses and calls, and, where an input or parameter requires grad, the gradients of the sum of the outputs.
A pruned prologue checks less than upstream's usual one: there upstream itself may reuse an entry for inputs that
do not fit it, and the fast path must do the same (or take upstream's path), never something else.

Usage: python tools/transforms_differential.py [--device cpu|cuda] [--configs NAME,...]
Prints one line per configuration and subject (calls, how many a guard served and which: '+' served, '.' upstream's
path, 'x' raised on both sides; why entries kept upstream's path; the first difference if any) and a summary line.
"""

import argparse
import copy
import pathlib
import sys
import time
import traceback

import torch

import thunder
import thunder.fastpath

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "thunder" / "tests"))
from fastpath_harness import assert_bitwise, autograd_facts, hits_misses, took_fast_path  # noqa: E402


# ------------------------------------------------------------------------------------------------ configurations
def configurations(device):
    """name -> (jit options, whether the module is made on the meta device); those that need CUDA only there."""
    from thunder.transforms.constant_folding import ConstantFolding
    from thunder.transforms.extraction_only_prologue_transform import ExtractionOnlyPrologueTransform
    from thunder.transforms.materialization import MaterializationTransform
    from thunder.transforms.prune_prologue_checks import PrunePrologueChecks

    executors = ["torch"] if device == "cpu" else None  # None: Thunder's defaults (nvFuser on CUDA)
    base = {} if executors is None else {"executors": executors}
    configs = {
        "plain": (lambda: dict(base), False),
        "constant_folding": (lambda: {**base, "transforms": [ConstantFolding()]}, False),
        "prune_module_checks": (lambda: {**base, "transforms": [PrunePrologueChecks()]}, False),
        "prune_all_checks": (lambda: {**base, "transforms": [PrunePrologueChecks(prune_all_checks=True)]}, False),
        "extraction_only_prologue": (lambda: {**base, "transforms": [ExtractionOnlyPrologueTransform()]}, False),
        "extraction_only_prologue_skip_inputs": (
            lambda: {**base, "transforms": [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]},
            False,
        ),
        "materialization": (
            lambda: {
                **base,
                "transforms": [
                    MaterializationTransform(device, init=MaterializationTransform.init_from_original_module_init())
                ],
            },
            True,
        ),
        "torchcompile_executor": (lambda: {"executors": ["torchcompile"]}, False),
        "symbolic_values": (lambda: {**base, "cache": "symbolic values"}, False),
    }
    if device == "cuda":
        from thunder.transforms.cudagraph import CUDAGraphTransform

        configs["cudagraph"] = (lambda: {**base, "transforms": [CUDAGraphTransform()]}, False)
        configs["nvfuser_and_cudagraph"] = (
            lambda: {"executors": ["nvfuser", "torch"], "transforms": [CUDAGraphTransform()]},
            False,
        )
    return configs


# ------------------------------------------------------------------------------------------------ subjects
def function(x, y, s=1.0):
    return torch.sin(x) * y + s * x, (x * 2).sum()


def function_with_constant(x, y, s=1.0):
    # A tensor made from constants alone, which ConstantFolding folds. On the CPU only: lightning-thunder 0.2.6's
    # ConstantFolding fails on a factory call with a device argument (AttributeError in SigInfo), as upstream.
    return torch.sin(x) * y + s * torch.arange(8.0).exp(), (x * 2).sum()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.norm = torch.nn.BatchNorm1d(8)
        self.scale = 2.0

    def forward(self, x):
        return torch.relu(self.norm(self.linear(x))) * self.scale


def make_net(device, meta):
    torch.manual_seed(0)
    if meta:
        with torch.device("meta"):
            net = Net()
        return net
    return Net().to(device)


def tensor(shape, seed, *, device, dtype=torch.float32, requires_grad=False, transposed=False):
    g = torch.Generator().manual_seed(seed)
    if transposed:  # same shape, other strides
        x = torch.randn(*reversed(shape), generator=g).to(dtype).t()
    else:
        x = torch.randn(*shape, generator=g).to(dtype)
    return x.to(device).requires_grad_(requires_grad)


def function_steps(device):
    """(label, make_args or a mutation, context) per step; make returns fresh (args, kwargs)."""
    T = lambda *a, **k: tensor(*a, device=device, **k)

    def same_tensor_twice():
        x = T((4, 8), 5)
        return (x, x), {}

    def views_of_one_storage():
        base = T((8, 8), 6)
        return (base[:4], base[4:]), {}

    return [
        ("first", lambda: ((T((4, 8), 0), T((4, 8), 1)), {}), None),
        ("again", lambda: ((T((4, 8), 2), T((4, 8), 3)), {}), None),
        ("strides", lambda: ((T((4, 8), 2, transposed=True), T((4, 8), 3)), {}), None),
        ("number", lambda: ((T((4, 8), 0), T((4, 8), 1)), {"s": 2.0}), None),
        ("number int", lambda: ((T((4, 8), 0), T((4, 8), 1)), {"s": 2}), None),
        ("shape", lambda: ((T((2, 8), 0), T((2, 8), 1)), {}), None),
        ("shape back", lambda: ((T((4, 8), 0), T((4, 8), 1)), {}), None),
        ("dtype", lambda: ((T((4, 8), 0, dtype=torch.float64), T((4, 8), 1, dtype=torch.float64)), {}), None),
        ("requires_grad", lambda: ((T((4, 8), 0, requires_grad=True), T((4, 8), 1)), {}), None),
        ("requires_grad again", lambda: ((T((4, 8), 2, requires_grad=True), T((4, 8), 3)), {}), None),
        ("no_grad", lambda: ((T((4, 8), 0), T((4, 8), 1)), {}), torch.no_grad),
        ("no_grad again", lambda: ((T((4, 8), 2), T((4, 8), 3)), {}), torch.no_grad),
        ("same tensor twice", same_tensor_twice, None),
        ("views of one storage", views_of_one_storage, None),
        ("wrong arity", lambda: ((T((4, 8), 0),), {}), None),
        ("None for a tensor", lambda: ((T((4, 8), 0), None), {}), None),
        ("first again", lambda: ((T((4, 8), 0), T((4, 8), 1)), {}), None),
    ]


def module_steps(device):
    T = lambda *a, **k: tensor(*a, device=device, **k)

    def bump_weight(m):
        with torch.no_grad():
            m.linear.weight.add_(0.5)

    def replace_bias(m):
        m.linear.bias = torch.nn.Parameter(torch.full_like(m.linear.bias, 0.25))

    def set_scale(m):
        m.scale = 3.0

    def set_scale_on_the_thunder_module(m):
        m.scale = 4.0

    return [
        ("first", lambda: ((T((4, 8), 0),), {}), None),
        ("again", lambda: ((T((4, 8), 1),), {}), None),
        ("strides", lambda: ((T((4, 8), 1, transposed=True),), {}), None),
        ("shape", lambda: ((T((2, 8), 2),), {}), None),
        ("shape back", lambda: ((T((4, 8), 3),), {}), None),
        ("eval", lambda m: m.eval(), None),
        ("eval call", lambda: ((T((4, 8), 4),), {}), None),
        ("eval call again", lambda: ((T((4, 8), 5),), {}), None),
        ("train", lambda m: m.train(), None),
        ("train call", lambda: ((T((4, 8), 6),), {}), None),
        ("weight updated in place", bump_weight, None),
        ("after the update", lambda: ((T((4, 8), 7),), {}), None),
        ("bias replaced", replace_bias, None),
        ("after the replacement", lambda: ((T((4, 8), 8),), {}), None),
        ("attribute changed", set_scale, None),
        ("after the attribute", lambda: ((T((4, 8), 9),), {}), None),
        ("no_grad", lambda: ((T((4, 8), 10),), {}), torch.no_grad),
        ("no_grad again", lambda: ((T((4, 8), 11),), {}), torch.no_grad),
        ("input requires grad", lambda: ((T((4, 8), 12, requires_grad=True),), {}), None),
        ("dtype", lambda: ((T((4, 8), 13, dtype=torch.float64),), {}), None),
        ("first again", lambda: ((T((4, 8), 14),), {}), None),
        # Set on the jitted module, not the model: upstream's next prologue reads the ThunderModule's own attribute
        # while the trace read the model's, and every call raises from then on (lightning-thunder 0.2.6).
        ("attribute set on the ThunderModule", set_scale_on_the_thunder_module, "jitted"),
        ("after that", lambda: ((T((4, 8), 15),), {}), None),
        ("after that again", lambda: ((T((4, 8), 16),), {}), None),
    ]


# ------------------------------------------------------------------------------------------------ comparison
def outcome(f, make, ctx):
    args, kwargs = make()
    torch.manual_seed(0)
    try:
        with ctx() if ctx else torch.enable_grad():
            return ("returned", f(*args, **kwargs)), args, kwargs
    except Exception as e:
        return ("raised", e), args, kwargs


def gradients(out, args, kwargs, module):
    """Gradients of the sum of the floating outputs, for the leaf tensors among the inputs and the parameters that
    require grad; None where nothing requires grad."""
    leaves = [
        x
        for x in torch.utils._pytree.tree_leaves((args, kwargs))
        if isinstance(x, torch.Tensor) and x.requires_grad and x.is_leaf
    ]
    if module is not None:
        leaves += [p for p in module.parameters() if p.requires_grad]
    outs = [
        o
        for o in torch.utils._pytree.tree_leaves(out)
        if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point()
    ]
    if not leaves or not outs:
        return None
    return torch.autograd.grad(sum(o.sum() for o in outs), leaves, allow_unused=True)


def compare(name, subject, options, meta, device):
    """Runs the subject's steps on both callables; returns (calls, served by a guard, the per-call pattern, why
    entries kept upstream's path). Raises AssertionError on the first difference."""
    if subject == "function":
        fn = function_with_constant if device == "cpu" else function
        targets, steps = (fn, fn), function_steps(device)
    else:
        net = make_net(device, meta)
        targets, steps = (copy.deepcopy(net), copy.deepcopy(net)), module_steps(device)
    torch.manual_seed(1)  # MaterializationTransform initializes the parameters at jit time
    up = thunder.jit(targets[0], fastpath=False, **options())
    torch.manual_seed(1)
    fast = thunder.jit(targets[1], fastpath=True, **options())
    assert thunder.fastpath.is_fast(fast) and not thunder.fastpath.is_fast(up), "fastpath= not honoured"
    calls = served = 0
    pattern = ""  # per call: '+' served by a guard, '.' upstream's path; 'x' where the call raised (both sides)
    for i, (label, step, ctx) in enumerate(steps):
        where = f"step {i} ({label})"
        if step.__code__.co_argcount == 1:
            # A mutation of both models; of the jitted modules where ctx says so, or where the models stayed on the
            # meta device (MaterializationTransform made the jitted modules' parameters).
            for jitted, model in ((up, targets[0]), (fast, targets[1])):
                step(jitted if ctx == "jitted" or meta else model)
            continue
        took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
        (kind_up, res_up), a_up, k_up = outcome(up, step, ctx)
        (kind_fast, res_fast), a_fast, k_fast = outcome(fast, step, ctx)
        calls += 1
        assert kind_up == kind_fast, f"{where}: upstream {kind_up} {res_up!r}, fast {kind_fast} {res_fast!r}"
        if kind_up == "raised":
            assert type(res_up) is type(res_fast), f"{where}: {res_up!r} vs {res_fast!r}"
        else:
            assert_bitwise(res_up, res_fast)
            assert autograd_facts(res_up) == autograd_facts(res_fast), f"{where}: autograd facts differ"
            assert_bitwise((a_up, k_up), (a_fast, k_fast))
            g_up = gradients(res_up, a_up, k_up, up if subject == "module" else None)
            g_fast = gradients(res_fast, a_fast, k_fast, fast if subject == "module" else None)
            assert (g_up is None) == (g_fast is None), f"{where}: gradients on one side only"
            if g_up is not None:
                assert_bitwise(g_up, g_fast)
        assert hits_misses(up) == hits_misses(fast), f"{where}: {hits_misses(up)} vs {hits_misses(fast)}"
        assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls, f"{where}: calls differ"
        if module_state(up) != module_state(fast):
            raise AssertionError(f"{where}: module state differs")
        served += took_fast_path(fast)
        pattern += "x" if kind_up == "raised" else "+" if took_fast_path(fast) else "."
    fn = fast._forward_fn if isinstance(fast, torch.nn.Module) else fast
    why_not = sorted({reason.split(":")[0][:80] for reason in fn._lc_fastpath_state.unsupported})
    return calls, served, pattern, why_not


def module_state(m):
    """Parameters and buffers bitwise (BatchNorm's running statistics change in training calls)."""
    if not isinstance(m, torch.nn.Module):
        return None
    return [(n, t.detach().cpu().numpy().tobytes()) for n, t in m.state_dict().items()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--configs", default="")
    args = parser.parse_args()
    configs = configurations(args.device)
    wanted = [c for c in args.configs.split(",") if c] or list(configs)
    totals = {"runs": 0, "calls": 0, "served": 0, "differ": 0, "setup_error": 0}
    for name in wanted:
        options, meta = configs[name]
        for subject in ("function", "module"):
            t0 = time.perf_counter()
            totals["runs"] += 1
            try:
                calls, served, pattern, why_not = compare(name, subject, options, meta, args.device)
            except AssertionError as e:
                totals["differ"] += 1
                print(f"DIFFERS {name} {subject}: {e}", flush=True)
                continue
            except Exception as e:  # the configuration itself did not work here (a missing compiler, ...)
                totals["setup_error"] += 1
                print(f"SETUP {name} {subject}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
                traceback.print_exc(limit=3)
                continue
            totals["calls"] += calls
            totals["served"] += served
            kept = f"; upstream's path kept for: {why_not}" if why_not else ""
            print(
                f"ok {name} {subject}: {calls} calls, {served} served by a guard [{pattern}] "
                f"({time.perf_counter() - t0:.1f} s){kept}",
                flush=True,
            )
    print(f"summary {vars(args)}: {totals}")
    return 1 if totals["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Upstream against the fast path when a jitted model is changed between calls (this CPU; not in CI).

A Linear + BatchNorm1d + ReLU + Dropout model, jitted with and without the fast path (two equal copies). After two
calls in each grad mode, one change is made to both copies (dtype conversion, load_state_dict, requires_grad_,
`.data` replaced, a parameter replaced or set to None, train/eval, BatchNorm attributes and buffers, a layer
swapped, in-place updates of a weight), then four more rounds of calls. Each call compares the outcome (output
bitwise and its requires_grad, or the exception's type), the model's state afterwards (BatchNorm's running
statistics) and the hit and miss counts. Where upstream keeps using a stale entry (a swapped layer, which its
prologue does not check), the fast path must do the same.

    .venv/bin/python benchmarks_results/s17_scripts/module_changes.py
"""

import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401
from contexts_options_modules import call, counts, same  # the same comparison (this folder is on sys.path)

warnings.filterwarnings("ignore")


def build():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Dropout(0.0))


def add_one_without_grad(m):
    with torch.no_grad():
        m[0].weight.add_(1)


CHANGES = {
    "double": lambda m: m.double(),
    "half": lambda m: m.half(),
    "load_state_dict": lambda m: m.load_state_dict({k: v * 2 for k, v in m.state_dict().items()}),
    "requires_grad_off": lambda m: m.requires_grad_(False),
    "weight_data": lambda m: setattr(m[0].weight, "data", torch.ones(4, 4)),
    "weight_data_transposed": lambda m: setattr(m[0].weight, "data", torch.ones(4, 4).t()),
    "new_parameter": lambda m: setattr(m[0], "weight", torch.nn.Parameter(torch.ones(4, 4))),
    "bias_none": lambda m: setattr(m[0], "bias", None),
    "eval": lambda m: m.eval(),
    "eval_then_train": lambda m: m.eval().train(),
    "momentum": lambda m: setattr(m[1], "momentum", 0.5),
    "eps": lambda m: setattr(m[1], "eps", 1e-3),
    "swap_layer": lambda m: m.__setitem__(2, torch.nn.GELU()),
    "dropout_p": lambda m: setattr(m[3], "p", 1e-9),
    "weight_data_in_place": lambda m: m[0].weight.data.mul_(3),
    "weight_in_place_without_grad": add_one_without_grad,
    "running_mean_replaced": lambda m: setattr(m[1], "running_mean", torch.ones(4)),
    "track_running_stats_off": lambda m: setattr(m[1], "track_running_stats", False),
}
DTYPE_AFTER = {"double": torch.float64, "half": torch.float16}


def main():
    differences = 0
    for name, change in CHANGES.items():
        model_up, model_fast = build(), build()
        up, fast = thunder.jit(model_up, fastpath=False), thunder.jit(model_fast, fastpath=True)
        dtype, differed = torch.float32, False
        for step in range(6):
            if step == 2:
                change(model_up)
                change(model_fast)
                dtype = DTYPE_AFTER.get(name, torch.float32)
            x = (torch.arange(8.0).reshape(2, 4) / 7).to(dtype)
            for grad in (True, False):
                with torch.set_grad_enabled(grad):
                    seen = call(up, (x,)), call(fast, (x,))
                state_same = all(torch.equal(p, q) for p, q in zip(model_up.state_dict().values(), model_fast.state_dict().values()))
                if not (same(*seen) and state_same and counts(up) == counts(fast)):
                    differed = True
                    print("DIFFERENT", name, step, grad, seen[0][0], seen[1][0], state_same, counts(up), counts(fast))
        differences += differed
        print(f"  {name}: hits {thunder.cache_hits(fast)}, misses {thunder.cache_misses(fast)} (upstream {counts(up)})")
    print(f"module changes: {len(CHANGES)} sequences, {differences} with a difference")


if __name__ == "__main__":
    main()

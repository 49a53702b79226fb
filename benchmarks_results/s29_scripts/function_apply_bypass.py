"""Session 29: would a training hit gain from calling torch's C-level ``Function.apply`` directly (skipping
``torch.autograd.Function.apply``'s Python layer: the functorch check and ``unwrap_dead_wrappers`` over every
argument)? The same fast callable (train_step of small_graph.py) with thunder/fastpath/autograd.py's
``connect_to_autograd`` and with a variant that calls the C-level apply of the same two classes; rows interleaved;
µs per call. An experiment, not adopted (see BENCHMARKS.md, session 29).

    python benchmarks_results/s29_scripts/function_apply_bypass.py
"""
import statistics
import sys
import timeit

import torch

sys.path.insert(0, "thunder/benchmarks")  # run from the repository root
from small_graph import train_step_fn  # noqa: E402

import thunder  # noqa: E402
import thunder.fastpath
import thunder.fastpath.autograd as fast_autograd
import thunder.fastpath.cache_hit as cache_hit


_c_apply_link = super(torch.autograd.Function, fast_autograd.ThunderFunction).apply
_c_apply_output = super(torch.autograd.Function, fast_autograd.ThunderOutputFunction).apply


def c_level_apply(*, backward_fn, flat_args, flat_output, saved_tensors, saved_other, return_none_instead_of_grads,
                  disable_split_autograd, is_differentiable_outputs):
    side_channel = {}
    link = _c_apply_link(return_none_instead_of_grads, backward_fn, side_channel, saved_tensors, saved_other, None,
                         flat_output, *flat_args)
    _c_apply_output(link, side_channel, *flat_args)


def main():
    x, w = torch.randn(4, 16), torch.randn(16, 16, requires_grad=True)
    f = thunder.jit(train_step_fn)
    variants = {"Function.apply": fast_autograd.connect_to_autograd, "C-level apply": c_level_apply}
    grads = {}
    for name, connect in variants.items():
        cache_hit.connect_to_autograd = connect
        for _ in range(20):
            f(x, w).backward()
        w.grad = None
        f(x, w).backward()
        grads[name] = w.grad.clone()
    print("gradients bitwise equal:", torch.equal(*grads.values()))
    for phase, stmt in (("forward", lambda: f(x, w)), ("step", lambda: f(x, w).backward())):
        samples = {name: [] for name in variants}
        for _ in range(15):
            for name, connect in variants.items():
                cache_hit.connect_to_autograd = connect
                samples[name].append(timeit.timeit(stmt, number=2000) / 2000 * 1e6)
        for name, s in samples.items():
            print(f"{phase:8} {name:15} median {statistics.median(s):7.2f}  min {min(s):7.2f}")
    cache_hit.connect_to_autograd = fast_autograd.connect_to_autograd


if __name__ == "__main__":
    main()

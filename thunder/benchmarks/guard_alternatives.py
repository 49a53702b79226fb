"""Why guard.py generates Python around two C++ checks instead of using dynamo's whole C++ guard tree.

    python thunder/benchmarks/guard_alternatives.py [--device cpu|cuda] [--number 50000] [--repeats 7]

For n tensor arguments, the same question asked two ways (µs per call, minimum over repeats):

* python: what guard.py generates for the core of such a guard: the arity check, grad mode, autocast and the default
  dtype (one C call each) and one ``TensorGuards.check`` over all tensors (sizes pinned, strides free).
* dynamo tree: dynamo's ``RootGuardManager`` with the same checks as C++ leaf guards (length, global state, one
  ``TENSOR_MATCH`` per tensor), called on the argument tuple.

And the per-tensor cost of reading a storage's identity for the alias check: ``untyped_storage().data_ptr()``
(what upstream's cache info and guard.py read) against ``torch._C._storage_address`` (the StorageImpl's address:
another identity than upstream's, shown for its cost only).
"""

import argparse
import timeit

import torch
from torch._C._dynamo.guards import GlobalStateGuard, RootGuardManager, TensorGuards
from torch._dynamo.guards import GuardManagerType


def python_guard(tensors):
    n = len(tensors)
    grad_enabled, default_dtype = torch.is_grad_enabled(), torch.get_default_dtype()
    is_grad_enabled, is_any_autocast_enabled = torch.is_grad_enabled, torch._C._is_any_autocast_enabled
    get_default_dtype = torch.get_default_dtype
    tensor_guards = TensorGuards(
        *tensors,
        dynamic_dims_sizes=[list(t.shape) for t in tensors],
        dynamic_dims_strides=[[None] * t.dim() for t in tensors],
    )

    def guard(args):
        if len(args) != n:
            return False
        if is_grad_enabled() is not grad_enabled or is_any_autocast_enabled():
            return False
        if get_default_dtype() is not default_dtype:
            return False
        return tensor_guards.check(*args)

    return guard


def dynamo_tree(tensors):
    root = RootGuardManager()
    root.add_length_check_guard(len(tensors), ["len(args) == n"], None)
    root.add_global_state_guard(GlobalStateGuard(), ["global state"], None)
    for i, t in enumerate(tensors):
        item = root.tuple_getitem_manager(
            key=i, source=f"args[{i}]", example_value=t, guard_manager_enum=GuardManagerType.GUARD_MANAGER
        )
        item.add_tensor_match_guard(
            t,
            list(t.shape),
            [None] * t.dim(),
            f"args[{i}]",
            ["tensor match"],
            None,
            type(t),
            torch._C._dispatch_keys(t),
        )
    return root.check


def per_call_us(fn, number, repeats):
    return min(timeit.repeat(fn, number=number, repeat=repeats)) / number * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=50000)
    parser.add_argument("--repeats", type=int, default=7)
    opts = parser.parse_args()
    print(f"{'tensors':>7} {'python':>8} {'dynamo tree':>12}   (µs per guard call, {opts.device})")
    for n in (1, 2, 16):
        tensors = tuple(torch.randn(8, 8, device=opts.device) for _ in range(n))
        python, tree = python_guard(tensors), dynamo_tree(tensors)
        wrong = tensors[:-1] + (tensors[-1].double(),)
        assert python(tensors) and tree(tensors) and not python(wrong) and not tree(wrong)
        times = {"python": [], "tree": []}
        for _ in range(3):  # interleaved
            times["python"].append(
                per_call_us(lambda python=python, tensors=tensors: python(tensors), opts.number, opts.repeats)
            )
            times["tree"].append(
                per_call_us(lambda tree=tree, tensors=tensors: tree(tensors), opts.number, opts.repeats)
            )
        print(f"{n:>7} {min(times['python']):8.3f} {min(times['tree']):12.3f}")
    t = torch.randn(8, 8, device=opts.device)
    storage_address = torch._C._storage_address
    reads = {
        "t.untyped_storage().data_ptr()": lambda: t.untyped_storage().data_ptr(),
        "torch._C._storage_address(t)": lambda: storage_address(t),
        "(empty lambda)": lambda: None,
    }
    for name, fn in reads.items():
        print(f"{name:<32} {per_call_us(fn, opts.number, opts.repeats):8.3f} µs")


if __name__ == "__main__":
    main()

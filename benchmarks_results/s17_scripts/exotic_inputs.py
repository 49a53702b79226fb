"""Upstream against the fast path on unusual inputs (this CPU; not in CI): for every pair (first, second) of input
kinds, the call sequence first, first, second, second, first on a fresh upstream/fast pair, comparing each call's
outcome (returned or the exception type) and the hit and miss counts. Prints each first difference and a count.

    .venv/bin/python benchmarks_results/s17_scripts/exotic_inputs.py
"""

import collections
import dataclasses
import enum
import itertools
import math
import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401

warnings.filterwarnings("ignore")


def inference_tensor():
    with torch.inference_mode():
        return torch.ones(2, 2)


TENSORS = {
    "plain": lambda: torch.ones(2, 2),
    "named": lambda: torch.ones(2, 2, names=("n", "m")),
    "zero": lambda: torch.ones(0, 2),
    "expand": lambda: torch.ones(1, 2).expand(2, 2),
    "transposed": lambda: torch.ones(2, 2).t(),
    "offset": lambda: torch.ones(6)[2:].view(2, 2),
    "requires_grad": lambda: torch.ones(2, 2, requires_grad=True),
    "non_leaf": lambda: torch.ones(2, 2, requires_grad=True) * 1,
    "parameter": lambda: torch.nn.Parameter(torch.ones(2, 2)),
    "inference": inference_tensor,
    "float16": lambda: torch.ones(2, 2, dtype=torch.float16),
    "bfloat16": lambda: torch.ones(2, 2, dtype=torch.bfloat16),
    "uint8": lambda: torch.ones(2, 2, dtype=torch.uint8),
    "bool": lambda: torch.ones(2, 2, dtype=torch.bool),
    "complex": lambda: torch.ones(2, 2, dtype=torch.complex64),
    "conj": lambda: torch.ones(2, 2, dtype=torch.complex64).conj(),
    "float8": lambda: torch.ones(2, 2).to(torch.float8_e4m3fn),
    "subclass": lambda: torch.Tensor._make_subclass(type("Sub", (torch.Tensor,), {}), torch.ones(2, 2)),
    "meta": lambda: torch.empty(2, 2, device="meta"),
    "mkldnn": lambda: torch.ones(2, 2).to_mkldnn(),
    "coo": lambda: torch.ones(2, 2).to_sparse(),
    "csr": lambda: torch.ones(2, 2).to_sparse_csr(),
    "csc": lambda: torch.ones(2, 2).to_sparse_csc(),
    "bsr": lambda: torch.ones(2, 2).to_sparse_bsr((1, 1)),
}


class Color(enum.Enum):
    RED = 1


Pair = collections.namedtuple("Pair", "x y")


@dataclasses.dataclass
class Holder:
    x: torch.Tensor
    k: int


VALUES = {
    "none": lambda: None, "int": lambda: 3, "float": lambda: 2.5, "nan": lambda: math.nan, "inf": lambda: math.inf,
    "bool": lambda: True, "complex": lambda: 1 + 2j, "str": lambda: "abc", "bytes": lambda: b"ab",
    "size": lambda: torch.Size([2, 2]), "slice": lambda: slice(0, 2), "ellipsis": lambda: ..., "range": lambda: range(3),
    "enum": lambda: Color.RED, "dtype": lambda: torch.float32, "layout": lambda: torch.strided,
    "memory_format": lambda: torch.channels_last, "device": lambda: torch.device("cpu"), "generator": torch.Generator,
    "tuple": lambda: (1, 2), "list": lambda: [1, 2], "dict": lambda: {"a": 1}, "namedtuple": lambda: Pair(1, 2),
    "frozenset": lambda: frozenset({1}), "tensor_list": lambda: [torch.ones(2)],
    "nested_dict": lambda: {"a": {"b": torch.ones(2)}}, "dataclass": lambda: Holder(torch.ones(2), 1),
}

# (function, how its arguments are made from one input of the kind)
TENSOR_SEARCHES = [
    (lambda a: a * 2, lambda x: (x,)),
    (lambda a, b: (a * 2, b + 1), lambda x: (x, x)),  # the same tensor twice: aliasing
    (lambda a: a.sum(), lambda x: (x,)),
]
VALUE_SEARCHES = [
    (lambda a, v: a * 2, lambda v: (torch.ones(2), v)),
    (lambda a, v: a + 1 if v is None else a - 1, lambda v: (torch.ones(2), v)),
]


def outcome(jitted, args):
    try:
        jitted(*args)
        result = ("returned",)
    except Exception as e:
        result = ("raised", type(e).__name__)
    return result + (thunder.cache_hits(jitted), thunder.cache_misses(jitted))


def search(kinds, searches, pairs):
    differences = sequences = 0
    for fn, make_args in searches:
        for first, second in pairs:
            up, fast = thunder.jit(fn, fastpath=False), thunder.jit(fn, fastpath=True)
            sequences += 1
            history = []
            for kind in (first, first, second, second, first):
                args = make_args(kinds[kind]())
                seen = outcome(up, args), outcome(fast, args)
                history.append((kind, *seen))
                if seen[0] != seen[1]:
                    differences += 1
                    print("DIFFERENT", history)
                    break
    return sequences, differences


def main():
    tensor_pairs = list(itertools.product(TENSORS, repeat=2))
    # values: every kind after itself, and after an int, None and a list of tensors
    value_pairs = [(a, b) for a, b in itertools.product(VALUES, repeat=2) if a == b or a in ("int", "none", "tensor_list")]
    for name, kinds, searches, pairs in [("tensors", TENSORS, TENSOR_SEARCHES, tensor_pairs),
                                         ("values", VALUES, VALUE_SEARCHES, value_pairs)]:
        sequences, differences = search(kinds, searches, pairs)
        print(f"{name}: {sequences} sequences, {differences} with a difference")


if __name__ == "__main__":
    main()

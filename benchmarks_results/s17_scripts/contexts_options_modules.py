"""Upstream against the fast path under surrounding state, jit options and unusual modules (this CPU; not in CI).

Three searches, each comparing every call's outcome (output and requires_grad, or the exception's type), in-place
updates where there are any, and the hit and miss counts of a fresh upstream/fast pair:

* contexts: two functions, inputs with and without requires_grad, the sequence c1, c1, c2, c2, c1 for pairs of
  contexts (grad and inference modes, a torch-function mode, a dispatch mode, a mode that changes results, anomaly
  detection, saved-tensor hooks, forward AD's dual level, thread count, deterministic algorithms, device contexts);
* jit options: a function and an in-place function under ten option sets (executors, cache options, prologue
  transforms, disable_torch_autograd, skip_inplace_functionalization), over a sequence that hits and misses;
* modules: seven unusual modules (a None buffer, a sparse CSR buffer, a ParameterDict, a property, tied weights, a
  frozen parameter, a ModuleList), each changed after two calls, under grad mode on and off.

    .venv/bin/python benchmarks_results/s17_scripts/contexts_options_modules.py
"""

import contextlib
import warnings

import torch
import torch.autograd.forward_ad as forward_ad
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import thunder
import thunder.fastpath  # noqa: F401
from thunder.transforms.extraction_only_prologue_transform import ExtractionOnlyPrologueTransform

warnings.filterwarnings("ignore")


def same(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "raised":
        return a[1] == b[1]
    return all(torch.equal(x, y) if isinstance(x, torch.Tensor) else x == y for x, y in zip(a[1:], b[1:]))


def counts(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


def call(jitted, args, ctx=contextlib.nullcontext):
    try:
        with ctx():
            out = jitted(*args)
        return ("returned", out.detach().clone(), out.requires_grad, *(a.detach().clone() for a in args if isinstance(a, torch.Tensor)))
    except Exception as e:
        return ("raised", type(e).__name__)


def report(name, differences, total):
    print(f"{name}: {total} sequences, {differences} with a difference")


# ------------------------------------------------------------------------------------------------ contexts
class CountingFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class CountingDispatchMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class AddsOneToProducts(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return out + 1 if func is torch.mul else out


@contextlib.contextmanager
def one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(n)


@contextlib.contextmanager
def deterministic():
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(False)


CONTEXTS = {
    "none": contextlib.nullcontext,
    "no_grad": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "function_mode": CountingFunctionMode,
    "dispatch_mode": CountingDispatchMode,
    "mode_changing_results": AddsOneToProducts,
    "anomaly": torch.autograd.detect_anomaly,
    "saved_tensor_hooks": lambda: torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
    "dual_level": forward_ad.dual_level,
    "one_thread": one_thread,
    "deterministic": deterministic,
    "meta_device": lambda: torch.device("meta"),
    "cpu_device": lambda: torch.device("cpu"),
}


def search_contexts():
    differences = total = 0
    pairs = [(a, b) for a in CONTEXTS for b in CONTEXTS if a == b or "none" in (a, b)]
    for fn in (lambda a, b: a * b + a, lambda a, b: (a * b).sum()):
        for requires_grad in (False, True):
            for first, second in pairs:
                up, fast = thunder.jit(fn, fastpath=False), thunder.jit(fn, fastpath=True)
                total += 1
                for ctx in (first, first, second, second, first):
                    make = lambda: (torch.ones(2, 2, requires_grad=requires_grad), torch.full((2, 2), 2.0))
                    seen = call(up, make(), CONTEXTS[ctx]), call(fast, make(), CONTEXTS[ctx])
                    if not same(*seen) or counts(up) != counts(fast):
                        differences += 1
                        print("DIFFERENT", (first, second), ctx, seen[0][:1], seen[1][:1], counts(up), counts(fast))
                        break
    report("contexts", differences, total)


# ------------------------------------------------------------------------------------------------ jit options
OPTIONS = {
    "default": {},
    "disable_torch_autograd": {"disable_torch_autograd": True},
    "torch_and_python_executors": {"executors": ["torch", "python"]},
    "sdpa_and_torch_executors": {"executors": ["sdpa", "torch"]},
    "symbolic_values": {"cache": "symbolic values"},
    "no_caching": {"cache": "no caching"},
    "same_input": {"cache": "same input"},
    "extraction_only_prologue": {"transforms": [ExtractionOnlyPrologueTransform()]},
    "extraction_only_prologue_no_tensor_checks": {"transforms": [ExtractionOnlyPrologueTransform(skip_check_on_input_tensors=True)]},
    "skip_inplace_functionalization": {"skip_inplace_functionalization": True},
}


def search_options():
    differences = total = 0
    for name, options in OPTIONS.items():
        for in_place, fn in enumerate((lambda a, n: a * n + a, lambda a, n: a.add_(n))):
            up, fast = thunder.jit(fn, fastpath=False, **options), thunder.jit(fn, fastpath=True, **options)
            total += 1
            sequence = [(3, 2), (3, 2), (3, 3), (4, 3), (3, 2)]
            calls = [(torch.ones(size), n) for size, n in sequence] + [(torch.ones(3, requires_grad=not in_place), 2)]
            for a, n in calls:
                seen = call(up, (a.clone(), n)), call(fast, (a.clone(), n))
                if not same(*seen) or counts(up) != counts(fast):
                    differences += 1
                    print("DIFFERENT", name, in_place, seen[0][:1], seen[1][:1], counts(up), counts(fast))
                    break
            state = getattr(fast, "_lc_fastpath_state", None)
            served = "upstream's path (cache option)" if state is None else f"{len(state.hits)} guarded entries"
            print(f"  {name}, {'in-place' if in_place else 'pure'}: hits {thunder.cache_hits(fast)}, {served}")
    report("jit options", differences, total)


# ------------------------------------------------------------------------------------------------ modules
class NoneBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", None)
        self.w = torch.nn.Parameter(torch.ones(2))

    def forward(self, x):
        return x * self.w if self.b is None else x * self.w + self.b


class SparseCsrBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("b", torch.eye(2).to_sparse_csr())

    def forward(self, x):
        return x @ self.b


class WithParameterDict(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pd = torch.nn.ParameterDict({"a": torch.nn.Parameter(torch.ones(2))})

    def forward(self, x):
        return x * self.pd["a"]


class WithProperty(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w, self.k = torch.nn.Parameter(torch.ones(2)), 2

    @property
    def scale(self):
        return self.k * 2

    def forward(self, x):
        return x * self.w * self.scale


class TiedWeights(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(2, 2, bias=False), torch.nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


class FrozenParameter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2), requires_grad=False)

    def forward(self, x):
        return x * self.w


class WithModuleList(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def set_buffer(m):
    m.b = torch.ones(2)


def replace_dict_entry(m):
    m.pd["a"] = torch.nn.Parameter(torch.full((2,), 3.0))


def set_attribute(m):
    m.k = 3


def untie(m):
    m.b.weight = torch.nn.Parameter(torch.ones(2, 2))


def unfreeze(m):
    m.w.requires_grad_(True)


def append_layer(m):
    m.layers.append(torch.nn.Linear(2, 2))


MODULES = [(NoneBuffer, set_buffer), (SparseCsrBuffer, None), (WithParameterDict, replace_dict_entry),
           (WithProperty, set_attribute), (TiedWeights, untie), (FrozenParameter, unfreeze),
           (WithModuleList, append_layer)]


def search_modules():
    differences = 0
    for cls, change in MODULES:
        torch.manual_seed(0)
        model_up = cls()
        torch.manual_seed(0)
        model_fast = cls()  # a sparse CSR buffer cannot be deep-copied
        up, fast = thunder.jit(model_up, fastpath=False), thunder.jit(model_fast, fastpath=True)
        differed = False
        for step in range(5):
            if step == 2 and change is not None:
                change(model_up)
                change(model_fast)
            for grad in (True, False):
                with torch.set_grad_enabled(grad):
                    seen = call(up, (torch.ones(1, 2),)), call(fast, (torch.ones(1, 2),))
                if not same(*seen) or counts(up) != counts(fast):
                    differed = True
                    print("DIFFERENT", cls.__name__, step, grad, seen[0][:1], seen[1][:1], counts(up), counts(fast))
        differences += differed
        unsupported = fast._forward_fn._lc_fastpath_state.unsupported
        print(f"  {cls.__name__}: hits {thunder.cache_hits(fast)}, entries kept on upstream's path: {len(unsupported)}")
    report("modules", differences, len(MODULES))


if __name__ == "__main__":
    search_contexts()
    search_options()
    search_modules()

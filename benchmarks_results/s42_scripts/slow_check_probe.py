"""Session 42: which common modules' hits still go through the guard's slow tensor check (check_tensors_slowly)?
Each module jitted with the fast path, called under no_grad until it hits, then 5 more calls counted. This CPU."""
import torch
import thunder
from thunder.fastpath import guard as guard_module

calls = []
original = guard_module.check_tensors_slowly


def counting(*args):
    calls.append(1)
    return original(*args)


guard_module.check_tensors_slowly = counting  # read when a guard is built


class SharedBlock(torch.nn.Module):  # one submodule used twice (ALBERT-like layer sharing)
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)
        self.layers = torch.nn.ModuleList([self.layer, self.layer])

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


class TiedTwoWays(torch.nn.Module):  # one Parameter in two modules, used by both
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 8, bias=False)
        self.b = torch.nn.Linear(8, 8, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


torch.manual_seed(0)
x8 = torch.randn(2, 8)
cases = {
    "Linear": (torch.nn.Linear(8, 8), x8),
    "Conv2d": (torch.nn.Conv2d(3, 4, 3), torch.randn(1, 3, 8, 8)),
    "BatchNorm2d eval": (torch.nn.BatchNorm2d(3).eval(), torch.randn(2, 3, 4, 4)),
    "LayerNorm": (torch.nn.LayerNorm(8), x8),
    "Embedding": (torch.nn.Embedding(10, 8), torch.tensor([[1, 2, 3]])),
    "MultiheadAttention (self)": (torch.nn.MultiheadAttention(8, 2, batch_first=True).eval(), None),
    "TransformerEncoderLayer": (torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(),
                                torch.randn(1, 4, 8)),
    "shared submodule": (SharedBlock(), x8),
    "tied across two modules": (TiedTwoWays(), x8),
}
for name, (module, x) in cases.items():
    try:
        jitted = thunder.jit(module)
        if name.startswith("MultiheadAttention"):
            q = torch.randn(1, 4, 8)
            args = (q, q, q)
            run = lambda: jitted(*args, need_weights=False)
        else:
            run = lambda: jitted(x)
        with torch.no_grad():
            for _ in range(3):
                run()
            calls.clear()
            for _ in range(5):
                run()
        state = jitted._forward_fn._lc_fastpath_state
        print(f"{name:<28} slow checks in 5 hits: {len(calls)}; guarded entries {len(state.hits)}, "
              f"unsupported {state.unsupported}, last call served by a guard: {state.published is not None}")
    except Exception as e:
        print(f"{name:<28} {type(e).__name__}: {str(e)[:100]}")

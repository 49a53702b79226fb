"""Session 42: upstream lightning-thunder 0.2.6 alone (no fast path): a call under torch.autocast changes later
compilations outside autocast (populate_cache_info pushes onto cd.autocast_stack and nothing pops)."""
import torch, thunder
def f(a, b):
    return a @ b
j = thunder.jit(f)
a, b = torch.randn(4, 4), torch.randn(4, 4)
print("outside first:", j(a, b).dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("under autocast:", j(a, b).dtype)
print("stack", thunder.compile_data(j).autocast_stack.stack)
a2, b2 = torch.randn(3, 3), torch.randn(3, 3)
print("outside, new shape (compiles):", j(a2, b2).dtype, "eager:", f(a2, b2).dtype)
j2 = thunder.jit(f)
with torch.autocast("cpu", dtype=torch.bfloat16):
    j2(a, b)
print("fresh jit, outside after an autocast call, new shape:", j2(a2, b2).dtype)

"""Single torch calls that a guard line makes, timed alone (this CPU; min over 5 repeats of 200,000, ns). Run from the
repository root: .venv/bin/python benchmarks_results/s30_scripts/guard_call_costs.py
"""
import timeit, torch
a, b = torch.randn(8, 8), torch.randn(8, 8)
g = {"a": a, "b": b, "torch": torch, "s": a.untyped_storage()}
for stmt in ["a.is_nested or b.is_nested", "a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()",
             "a.data_ptr() == b.data_ptr()", "a.untyped_storage()", "a._is_view()", "torch.is_grad_enabled()",
             "torch._C._is_any_autocast_enabled()", "torch.get_default_dtype()", "torch._C._len_torch_function_stack()",
             "a.storage_offset()", "a._base", "torch._C._storage_address(a)", "s.data_ptr()"]:
    try:
        n = 200000
        t = min(timeit.repeat(stmt, globals=g, number=n, repeat=5)) / n * 1e9
        print(f"{t:8.1f} ns  {stmt}")
    except Exception as e:
        print("ERR", stmt, e)

"""Session 29: torch.randn against torch.empty for the one-element meta tensors of the autograd connection (minima of
5 x 5000 calls, µs).

    python benchmarks_results/s29_scripts/meta_tensor_cost.py
"""
import torch, timeit
for stmt in ['torch.randn(1, device="meta", requires_grad=True)', 'torch.empty(1, device="meta", requires_grad=True)',
             'torch.randn(1, device="meta")', 'torch.empty(1, device="meta")', 'torch.empty((1,), device="meta")']:
    t = min(timeit.repeat(stmt, globals=globals(), number=5000, repeat=5)) / 5000 * 1e6
    print(f"{t:8.2f} us  {stmt}")

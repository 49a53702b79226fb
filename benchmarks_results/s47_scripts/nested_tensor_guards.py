"""Session 47: does dynamo's TensorGuards still end the process on a strided nested tensor (torch 2.11)? The guards'
nested-tensor check exists for that (guard.py, tensor_check). Runs the check in a child process and prints its exit."""
import subprocess
import sys

CHILD = r'''
import torch
from torch._C._dynamo.guards import TensorGuards
a = torch.randn(3, 4)
guards = TensorGuards(a, dynamic_dims_sizes=[[3, 4]], dynamic_dims_strides=[[None, None]])
nested = torch.nested.nested_tensor([torch.randn(2, 4), torch.randn(3, 4)])
print("layout", nested.layout, "is_nested", nested.is_nested, flush=True)
try:
    print("check returned", guards.check(nested))
except Exception as e:
    print("check raised", type(e).__name__, e)
'''

result = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True)
print(f"torch {__import__('torch').__version__}: child exit code {result.returncode}")
print(result.stdout.strip())
print("stderr, its error lines:")
for line in result.stderr.splitlines():
    if "error" in line.lower() or "terminate" in line.lower():
        print("   ", line.strip())

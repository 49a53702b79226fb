"""Session 28: upstream's thunderfx alone (thunder.fastpath not imported) on the function of test_overhead.py's
test_thunderfx_subgraphs_take_the_fast_path; under torch 2.12 with lightning-thunder 0.2.6 it raises before any
fast path is involved."""
import torch

from thunder.dynamo import thunderfx


def f(x, y):
    return torch.sin(x) * y + 1


print(torch.__version__)
try:
    print(thunderfx(f)(torch.randn(4), torch.randn(4)))
except Exception as e:
    print(f"upstream thunderfx raised {type(e).__name__}: {e}")

"""Could the alias check read each tensor's storage identity with cheaper calls than upstream's
``t.untyped_storage().data_ptr()`` (which makes a Python storage object per tensor)?

    python benchmarks_results/s31_scripts/alias_read_forms.py

The same address follows from ``t.data_ptr() - t.storage_offset() * t.element_size()``; ``data_ptr()`` alone is the
storage's address only where the offset is 0, which the guard does not pin (TensorGuards compares sizes and strides,
not offsets). µs per call, minimum of 7 repeats of 200,000 calls, one CPU tensor of 8 floats.
"""

import timeit

import torch

a = torch.randn(8)
NUMBER = 200_000
for label, stmt in [
    ("t.untyped_storage().data_ptr()", "a.untyped_storage().data_ptr()"),
    ("t.data_ptr()", "a.data_ptr()"),
    ("t.storage_offset()", "a.storage_offset()"),
    ("t.data_ptr(), t.storage_offset()", "a.data_ptr(); a.storage_offset()"),
    ("t.is_nested (for scale)", "a.is_nested"),
]:
    best = min(timeit.repeat(stmt, globals={"a": a}, number=NUMBER, repeat=7)) / NUMBER * 1e6
    print(f"{label:36s} {best:.3f} us")

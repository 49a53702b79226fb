"""Data-parallel training with the fast path: ``thunder.distributed.ddp`` and ``fsdp`` (ZeRO-2, ZeRO-3) on two
processes of this machine (the gloo backend), through the benchmark script that runs the same steps on GPUs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

from fastpath_harness import REPO


@pytest.mark.slow
@pytest.mark.skipif(not torch.distributed.is_available(), reason="needs torch.distributed")
def test_distributed_training_on_two_processes(tmp_path):
    # Each rank trains upstream's and the fast path's copies of a small nanoGPT; after the warm-up their parameters
    # must be bitwise equal on every rank, and every timed call of the fast callable a hit served by its guards.
    result = tmp_path / "distributed.json"
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
        str(REPO / "thunder" / "benchmarks" / "distributed_training.py"),
        "--device", "cpu", "--quick", "--modes", "ddp,fsdp_zero2,fsdp_zero3", "--json", str(result),
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    rows = json.loads(result.read_text())["rows"]
    assert {(r["mode"], r["rank"]) for r in rows} == {
        (m, k) for m in ("ddp", "fsdp_zero2", "fsdp_zero3") for k in (0, 1)
    }
    for r in rows:
        assert r["check"] == "=", r
        assert r["fast_calls_while_timed"] > 0 and r["fast_served_while_timed"] == r["fast_calls_while_timed"], r

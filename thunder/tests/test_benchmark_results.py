"""The benchmarks' results files: what ``--update`` keeps and replaces (small_graph.py, small_models.py,
training_steps.py), the target figures that both ``small_graph.py`` and ``tools/render_benchmarks.py`` show
(``target_figures.py``), and training_steps.py's marks, table and systems run in processes of their own."""

from __future__ import annotations

import json
import pathlib
import sys
from dataclasses import asdict

import pytest
import torch

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "benchmarks"))
sys.path.insert(0, str(pathlib.Path(__file__).parents[2] / "tools"))

import small_graph  # noqa: E402
import training_steps  # noqa: E402
from target_figures import target_figures  # noqa: E402

ENV = {"python": "3.x", "device": "cpu"}


def rows_of(case, fast, computation, eager, count=None, minimum=None):
    def row(system, us):
        return small_graph.Row(case, system, us, us if minimum is None else minimum[system], us, count=count)

    return [row("eager", eager), row("fast", fast), row("computation", computation)]


def test_update_replaces_the_cases_run_and_keeps_the_others(tmp_path, monkeypatch):
    path = str(tmp_path / "results.json")
    monkeypatch.setattr(sys, "argv", ["small_graph.py", "--cases", "a,b"])
    small_graph.write_rows(path, ENV, rows_of("a", 2.0, 1.0, 1.0) + rows_of("b", 4.0, 3.0, 2.0), None)
    monkeypatch.setattr(sys, "argv", ["small_graph.py", "--cases", "b,c", "--update"])
    earlier = small_graph.read_earlier_run(path, ENV)
    small_graph.write_rows(path, ENV, rows_of("b", 5.0, 3.0, 2.0) + rows_of("c", 6.0, 5.0, 3.0), earlier)
    data = json.loads(pathlib.Path(path).read_text())
    assert [(r["case"], r["system"], r["median_us"]) for r in data["rows"] if r["system"] == "fast"] == [
        ("a", "fast", 2.0),
        ("b", "fast", 5.0),
        ("c", "fast", 6.0),
    ]
    assert data["argv"] == ["--cases", "b,c", "--update"]
    assert data["earlier_argv"] == [["--cases", "a,b"]]


def test_training_steps_update_keeps_other_cases_and_their_while_timed_figures(tmp_path):
    path = str(tmp_path / "training.json")

    def run(case, us):
        rows = [training_steps.Row(case, variant, "fast", [us, us], us) for variant in ("step", "fwd+bwd")]
        extras = {(case, variant): {"fast_misses_while_timed": us} for variant in ("step", "fwd+bwd")}
        return rows, extras

    a, b = run("llama2_4x64", 1.0), run("nanogpt_4x64", 2.0)
    training_steps.write_json(path, ENV, ["--cases", "llama2,nanogpt"], a[0] + b[0], {**a[1], **b[1]})
    new_b = run("nanogpt_4x64", 3.0)
    earlier = small_graph.read_earlier_run(path, ENV)
    training_steps.write_json(path, ENV, ["--cases", "nanogpt", "--update"], *new_b, earlier)
    data = json.loads(pathlib.Path(path).read_text())
    assert [(r["case"], r["variant"], r["median_us"]) for r in data["rows"]] == [
        ("llama2_4x64", "step", 1.0),
        ("llama2_4x64", "fwd+bwd", 1.0),
        ("nanogpt_4x64", "step", 3.0),
        ("nanogpt_4x64", "fwd+bwd", 3.0),
    ]
    assert {k: e["fast_misses_while_timed"] for k, e in data["while_timed"].items()} == {
        "llama2_4x64 step": 1.0,
        "llama2_4x64 fwd+bwd": 1.0,
        "nanogpt_4x64 step": 3.0,
        "nanogpt_4x64 fwd+bwd": 3.0,
    }
    assert data["earlier_argv"] == [["--cases", "llama2,nanogpt"]]


def test_update_refuses_results_of_another_environment(tmp_path):
    path = tmp_path / "results.json"
    assert small_graph.read_earlier_run(str(path), ENV) is None  # nothing yet: the run writes a new file
    path.write_text(json.dumps({"environment": {**ENV, "device": "cuda"}, "argv": [], "rows": []}))
    with pytest.raises(SystemExit, match="another environment"):
        small_graph.read_earlier_run(str(path), ENV)


def test_target_figures_per_case_and_growth_per_tensor():
    minimum_16 = {"eager": 1.0, "fast": 5.0, "computation": 2.0}
    minimum_64 = {"eager": 1.0, "fast": 17.0, "computation": 4.0}
    rows = rows_of("inputs_16", 6.0, 2.0, 3.0, count=16, minimum=minimum_16)
    rows += rows_of("inputs_64", 16.0, 4.0, 8.0, count=64, minimum=minimum_64)
    figures, growths = target_figures([asdict(r) for r in rows])
    assert [(f.case, f.fast_over_computation, f.fast_minus_computation_us, f.fast_over_eager) for f in figures] == [
        ("inputs_16", 3.0, 4.0, 2.0),
        ("inputs_64", 4.0, 12.0, 2.0),
    ]
    assert figures[0].fast_over_fec is None  # no nvFuser executor row on the CPU
    (growth,) = growths
    assert (growth.small, growth.large, growth.what) == ("inputs_16", "inputs_64", "tensor input")
    assert growth.from_medians_us == pytest.approx((12.0 - 4.0) / 48)
    assert growth.from_minima_us == pytest.approx((13.0 - 3.0) / 48)


class StubSystem:
    """A training system whose model's parameters all hold ``value`` and whose steps return ``loss``."""

    def __init__(self, value: float, loss: float = 1.0):
        self.model = torch.nn.Linear(2, 2)
        with torch.no_grad():
            for p in self.model.parameters():
                p.fill_(value)
        self.loss = loss

    def step(self):
        return torch.tensor(self.loss)


def test_training_steps_marks_each_fast_system_against_its_upstream():
    systems = {
        "eager": StubSystem(1.0),
        "thunder": StubSystem(1.0),
        "fast": StubSystem(1.0),
        "thunder+graphs": StubSystem(1.0),
        "fast+graphs": StubSystem(1.0, loss=2.0),  # the same parameters, another loss: not bitwise its upstream's
        "torch.compile": StubSystem(5.0),
    }
    marks, _ = training_steps.checks_after_warm_up(systems, 2)
    assert marks == {
        "eager": "",
        "thunder": "~",
        "fast": "=",
        "thunder+graphs": "~",
        "fast+graphs": "!",
        "torch.compile": "!",
    }


def test_training_table_puts_the_graph_systems_in_a_table_of_their_own():
    import render_benchmarks  # tools/

    def row(system, us, vs_upstream=None, check=""):
        r = training_steps.Row("llama2_4x64", "step", system, [us, us], us, vs_eager=us / 100, check=check)
        r.vs_upstream = vs_upstream
        return asdict(r)

    plain = [row("eager", 100), row("thunder", 90), row("fast", 80, 80 / 90, "=")]
    assert len(render_benchmarks.training_table({"rows": plain})) == 3
    graphed = plain + [
        row("thunder+graphs", 20),
        row("fast+graphs", 16, 0.8, "="),
        row("torch.compile reduce-overhead", 15),
    ]
    lines = render_benchmarks.training_table({"rows": graphed})
    assert lines[-1] == "| llama2_4x64 | step | 20 / 20 | 16 / 16 | 15 / 15 | 0.16 | 0.80 | 1.07 | = |"


@pytest.mark.slow
def test_training_steps_keep_every_row_when_a_system_fails_in_its_own_process(monkeypatch):
    # The tiny LLaMA-2's systems: eager and upstream here, the fast path in a process of its own (its '=' mark compares
    # parameters that came back from there), and Thunder's CUDA-graph transform in one of its own, where it fails on
    # the CPU. Its rows say why; the others are timed and marked as in one process.
    monkeypatch.setattr(training_steps, "system_names", lambda *_: ["eager", "thunder", "fast", "thunder+graphs"])
    args = training_steps.parse_args(["--device", "cpu", "--quick", "--own-process", "fast,thunder+graphs"])
    (case,) = [c for c in training_steps.make_cases() if c.name == "llama2_tiny_2x8"]
    rows, extras = training_steps.run_case(case, "cpu", args)
    by_system = {(r.variant, r.system): r for r in rows}
    assert sorted(by_system) == sorted(
        (v, s) for v in ("step", "fwd+bwd") for s in ("eager", "thunder", "fast", "thunder+graphs")
    )
    for variant in ("step", "fwd+bwd"):
        failed = by_system[variant, "thunder+graphs"]
        assert failed.failed and failed.timings_us == [] and failed.vs_eager is None
        fast = by_system[variant, "fast"]
        assert fast.check == "=" and len(fast.timings_us) == 2 and fast.vs_upstream > 0
        assert by_system[variant, "thunder"].check == "~" and not by_system[variant, "eager"].failed
        assert extras[(case.name, variant)]["fast_misses_while_timed"] == 0


def test_a_system_whose_process_dies_is_a_row_with_its_last_error(tmp_path, monkeypatch):
    # As a CUDA error ends a process (nvFuser's executor aborts after "illegal memory access"): the parent reads the
    # child's exit status and its last error line.
    dying = tmp_path / "dying"
    dying.write_text(
        "#!/bin/sh\necho 'RuntimeError: CUDA error: an illegal memory access was encountered' >&2\nkill -ABRT $$\n"
    )
    dying.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(dying))
    args = training_steps.parse_args(["--device", "cpu", "--quick"])
    (case,) = [c for c in training_steps.make_cases() if c.name == "llama2_tiny_2x8"]
    measured = training_steps.measure_in_own_process(case, "cpu", args, "torch.compile reduce-overhead")
    assert measured.failed == (
        "its process ended with exit status -6: RuntimeError: CUDA error: an illegal memory access was encountered"
    )
    rows, _ = training_steps.rows_of(case, {"torch.compile reduce-overhead": measured}, ["step"])
    assert rows[0].failed == measured.failed and rows[0].median_us is None

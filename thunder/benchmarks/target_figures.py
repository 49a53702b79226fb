"""The figures beyond the medians, from small_graph.py's rows (as its JSON holds them), which
``tools/render_benchmarks.py`` renders into BENCHMARKS.md: the fast path against the computation called alone (the
floor of a hit), eager and nvFuser's own executor, and how the fast path's cost grows per guarded tensor. No torch
import: the renderer reads JSON only."""

from __future__ import annotations

from typing import NamedTuple

# Pairs of cases that differ only in how many tensors the guard checks: (fewer, more, what the extra ones are).
GROWTH_PAIRS = (("inputs_16", "inputs_64", "tensor input"), ("params_32", "params_128", "parameter"))


class CaseFigures(NamedTuple):
    case: str
    fast_over_computation: float  # the computation called directly is the floor of a hit
    fast_minus_computation_us: float
    fast_over_eager: float
    fast_over_fec: float | None  # nvFuser's FusionExecutorCache.execute on Thunder's definition (CUDA)


class Growth(NamedTuple):
    small: str
    large: str
    what: str
    from_medians_us: float  # growth of fast - computation per extra tensor
    from_minima_us: float


def by_case(rows: list[dict]) -> dict[str, dict[str, dict]]:
    """``{case: {system: row}}`` in the rows' order."""
    cases: dict[str, dict[str, dict]] = {}
    for r in rows:
        cases.setdefault(r["case"], {})[r["system"]] = r
    return cases


def hit_overhead(systems: dict[str, dict], stat: str) -> float:
    """fast - computation of one case, by its ``median_us`` or its ``min_us``."""
    return systems["fast"][stat] - systems["computation"][stat]


def target_figures(rows: list[dict]) -> tuple[list[CaseFigures], list[Growth]]:
    cases = by_case(rows)
    figures = []
    for case, systems in cases.items():
        if "fast" not in systems or "computation" not in systems:
            continue
        fast = systems["fast"]["median_us"]
        fec = systems.get("nvfuser-fec.execute")
        figures.append(
            CaseFigures(
                case,
                fast / systems["computation"]["median_us"],
                hit_overhead(systems, "median_us"),
                fast / systems["eager"]["median_us"],
                None if fec is None else fast / fec["median_us"],
            )
        )
    growths = []
    for small, large, what in GROWTH_PAIRS:
        a, b = cases.get(small, {}), cases.get(large, {})
        if all(s in r for r in (a, b) for s in ("fast", "computation")):
            extra = b["fast"]["count"] - a["fast"]["count"]
            medians, minima = (
                (hit_overhead(b, stat) - hit_overhead(a, stat)) / extra for stat in ("median_us", "min_us")
            )
            growths.append(Growth(small, large, what, medians, minima))
    return figures, growths

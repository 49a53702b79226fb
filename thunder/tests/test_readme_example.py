"""README's example prints what README shows (``tools/readme_example.py``)."""

from __future__ import annotations

import importlib.util

from fastpath_harness import REPO


def test_readme_example_prints_what_readme_shows():
    spec = importlib.util.spec_from_file_location("readme_example", REPO / "tools" / "readme_example.py")
    readme_example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(readme_example)
    code, expected = readme_example.example_and_output((REPO / "README.md").read_text())
    assert readme_example.run_example(code) == expected

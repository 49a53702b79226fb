"""Runs README.md's example (the first ``python`` block under "## Use") and compares what it prints with the block
that README shows after it.

    python tools/readme_example.py    # exits 1 if the output differs

The example runs in a new interpreter (this one's, with this environment), from a temporary folder, so that it
imports ``thunder`` as installed, never from the checkout. ``test_readme_example.py`` and ``.ci/package_check`` (the
built wheel and sdist) run it.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def example_and_output(readme: str) -> tuple[str, str]:
    """The example's code and the output that README shows for it."""
    use = readme[readme.index("## Use") :]
    code, output = re.search(r"```python\n(.*?)```.*?```\n(.*?)```", use, re.S).groups()
    return code, output


def run_example(code: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=folder, capture_output=True, text=True, check=False, timeout=600
        )
    if done.returncode:
        raise RuntimeError(f"README's example failed:\n{done.stderr}")
    return done.stdout


def main() -> int:
    code, expected = example_and_output(README.read_text())
    printed = run_example(code)
    if printed != expected:
        print(f"README's example printed:\n{printed}\nREADME shows:\n{expected}")
        return 1
    print("README's example prints what README shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())

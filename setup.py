"""Installs ``thunder.fastpath`` into the ``thunder`` package of lightning-thunder.

Only the ``thunder/fastpath`` subpackage belongs to this distribution: ``thunder`` itself, and every other module
under it, comes from the pinned lightning-thunder release. ``pip install -e .`` maps ``thunder.fastpath`` to this
checkout, so tests and benchmarks always run the working tree's code. Build settings and ruff's are in
pyproject.toml.
"""

from setuptools import setup

setup(
    name="thunder-fastpath",
    version="0.1.0",
    description="Cheap cache hits for lightning-thunder's thunder.jit (overlay on lightning-thunder 0.2.6)",
    license="Apache-2.0",
    packages=["thunder.fastpath"],
    python_requires=">=3.10",
    install_requires=["lightning-thunder==0.2.6", "torch==2.11.0"],
)

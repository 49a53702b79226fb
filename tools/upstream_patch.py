"""The fast path as a pull request: a ``git format-patch`` series against lightning-thunder main, made from this tree.

    python tools/upstream_patch.py            # writes upstream/00NN-*.patch
    python tools/upstream_patch.py --check    # fails if upstream/ differs from what this tree generates
    python tools/upstream_patch.py --apply DIR  # DIR: upstream main with the committed series applied by `git am`
    python tools/upstream_patch.py --list-tests  # the test modules that the series moves, as `pytest --pyargs` names

Upstream main is read from its source snapshot (``--tarball``, else ``$THUNDER_UPSTREAM_TARBALL``, else
``../shared/upstream/lightning-thunder-1e22aac.tar.gz`` from the checkout's root), committed as the base. Each piece of
``SERIES`` then becomes one commit: this tree's files copied to where upstream keeps them, and the hand-written diffs
of ``upstream/hooks/`` applied to upstream's own files (the lines where Thunder calls the fast path's entry points,
``thunder/fastpath/entry.py``). The one change made to a copied file: the tests import their harness as
``thunder.tests.fastpath_harness`` (upstream's tests are a package; here pytest finds the harness beside them).
``overlay.py``, which installs the entry points into a Thunder without them, is not part of the series.

Commits carry a fixed author and date and the patches no commit ids, so the same tree always gives the same series:
CI runs ``--check``, so that the overlay and the series cannot drift apart.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from typing import NamedTuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "upstream"
HOOKS = OUT / "hooks"
DEFAULT_TARBALL = ROOT.parent / "shared" / "upstream" / "lightning-thunder-1e22aac.tar.gz"
IDENTITY = {
    "GIT_AUTHOR_NAME": "thunder-fastpath",
    "GIT_AUTHOR_EMAIL": "thunder-fastpath@users.noreply.github.com",
    "GIT_AUTHOR_DATE": "2026-01-29T12:00:00+00:00",
    "GIT_COMMITTER_NAME": "thunder-fastpath",
    "GIT_COMMITTER_EMAIL": "thunder-fastpath@users.noreply.github.com",
    "GIT_COMMITTER_DATE": "2026-01-29T12:00:00+00:00",
}


def _fastpath(*names: str) -> tuple[str, ...]:
    return tuple(f"thunder/fastpath/{name}.py" for name in names)


def _moved_tests() -> tuple[str, ...]:
    # The tests of this repository's results files, its distributed benchmark script and its README stay here.
    kept = {"test_benchmark_results.py", "test_distributed.py", "test_readme_example.py"}
    tests = sorted(p.name for p in (ROOT / "thunder" / "tests").glob("test_*.py") if p.name not in kept)
    return ("thunder/tests/fastpath_harness.py", *(f"thunder/tests/{name}" for name in tests))


class Piece(NamedTuple):
    subject: str
    body: str
    files: tuple[str, ...]  # this tree's files, copied to the same path upstream
    hooks: tuple[str, ...] = ()  # upstream/hooks/*.diff, applied to upstream's files


SERIES = (
    Piece(
        "fastpath: guards generated from each cache entry's prologue",
        "A cache hit runs the entry's prologue, whose checks are generic function calls, after populate_cache_info\n"
        "has filled a dict from torch's state. A guard answers the same question with code generated once per entry\n"
        "from its prologue trace: the same unpacking, the value checks written out, torch's state read directly,\n"
        "all tensors' metadata in one C++ call (dynamo's TensorGuards) and the aliasing by storage pointers. It\n"
        "returns MISS where the prologue would fail and DECLINE where it cannot tell (upstream's lookup decides).\n"
        "Nothing calls it yet.",
        _fastpath("codegen", "guard_steps", "tensor_checks", "state_checks", "prologue_checks", "guard"),
    ),
    Piece(
        "fastpath: the autograd connection of a cache hit",
        "Split autograd's ThunderFunction and ThunderOutputFunction with the same names and graph, changed where a\n"
        "training step pays for nothing: an empty meta link tensor instead of torch.randn's decompositions, the\n"
        "C++ Function.apply where no functorch transform is active, and a backward without layers that change\n"
        "nothing. Calls that upstream connects without the split go to connect_to_autograd. Nothing calls it yet.",
        _fastpath("autograd"),
    ),
    Piece(
        "nvFuser: regions that reuse their FusionDefinition on the fast path",
        "FusionDefinitionWrapper.__call__ recomputes every input's descriptor to look its definition up. A\n"
        "FusionRegion keeps the definition of the last input layout, checks the layout in one TensorGuards call and\n"
        "calls FusionExecutorCache.execute directly. create_fusion_definition_wrapper returns one for callables\n"
        "whose fastpath compile option is on, and the wrapper itself otherwise (the option is not set yet).",
        _fastpath("nvfuser"),
        ("nvfuser_region.diff",),
    ),
    Piece(
        "ThunderModule: a __call__ that the fast path can take over",
        "nn.Module.__call__ reads the compiled-call slot, the tracing state and eight hook dicts before forward\n"
        "calls _forward_fn. A ThunderModule whose _fastpath_call is set hands the call to it: the fast path's\n"
        "module call goes straight to its dispatcher while none of that state asks for anything. Unset (as\n"
        "before this series' next patch), __call__ is nn.Module's.",
        _fastpath("module"),
        ("thunder_module_call.diff",),
    ),
    Piece(
        "jit: the fast path, on by default (fastpath=False for the path without it)",
        "Each cache entry gets one generated function: its guard, the call statistics, the computation (with grad\n"
        "mode switched off only where it can change the outputs; a single nvFuser region called directly), the\n"
        "autograd connection and the epilogue, nothing else (NOTE [The stages of a hit]). The jitted callable tries\n"
        "them in the cache's order; every call that none of them serves goes through fn_ unchanged, after which\n"
        "the entry it used gets its function. thunder.fastpath.recompile_reasons(f) says which check of each entry\n"
        "a miss failed, stats(f) what f did. jit(fn, fastpath=None | True | False); THUNDER_FASTPATH, enable() and\n"
        "disable() set the default. Several threads may call one fast callable: each call's own lookup names the\n"
        "entry to guard, hits take no lock, and the compile data records grad mode per thread (NOTE [Threads]).",
        _fastpath("publication", "hit_function", "explain", "dispatch", "grad_mode", "switch", "entry", "__init__"),
        ("jit_fastpath.diff",),
    ),
    Piece(
        "ThunderFX: the split module called without nn.Module.__call__ on the fast path",
        "Dynamo calls a backend's result through torch._dynamo.disable, which wraps the split GraphModule that\n"
        "ThunderCompiler returns in an OptimizedModule: two nn.Module.__call__ and GraphModule's _WrappedCall run\n"
        "around the split module's forward on every call of the graph. Where its regions take the fast path,\n"
        "ThunderCompiler returns a function that calls forward itself while nn.Module.__call__ would do nothing\n"
        "else, and the disabled split module otherwise (NOTE [The split module's call]), as Dynamo's own eager\n"
        "backend returns gm.forward.",
        _fastpath("thunderfx"),
        ("thunderfx_graph.diff",),
    ),
    Piece(
        "tests: the fast path against the path without it, call by call",
        "Each test jits a callable twice, fastpath=False and True, makes the same calls on both and requires after\n"
        "each the same outputs bitwise (or exception type), autograd facts, in-place updates, cache hits and\n"
        "misses, and, where a hit is expected, that a guard served it (fastpath_harness.run_differential).",
        _moved_tests(),
        ("test_markers.diff",),
    ),
    Piece(
        "benchmarks: small_graph.py, per-call overhead on small graphs",
        "Eager PyTorch, jit without and with the fast path (and the entry's computation called directly, nvFuser's\n"
        "own executor, torch.compile and ThunderFX on request) side by side in one process, on the graphs of\n"
        "#1657 and #2775 and a few more; medians, ratios and whether outputs are bitwise equal.",
        ("thunder/benchmarks/small_graph.py",),
    ),
)


def tarball_path(given: str | None) -> pathlib.Path:
    path = pathlib.Path(given or os.environ.get("THUNDER_UPSTREAM_TARBALL") or DEFAULT_TARBALL)
    if not path.is_file():
        sys.exit(
            f"upstream_patch: no snapshot of lightning-thunder main at {path} (--tarball or THUNDER_UPSTREAM_TARBALL)"
        )
    return path


def git(repo: pathlib.Path, *args: str, stdin: bytes | None = None) -> str:
    env = {**os.environ, **IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=False)
    if done.returncode:
        sys.exit(f"upstream_patch: git {' '.join(args)} failed:\n{done.stderr.decode()}")
    return done.stdout.decode()


def unpack_base(tarball: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """Upstream main as a git repository with one commit; returns its root."""
    with tarfile.open(tarball) as archive:
        if hasattr(tarfile, "data_filter"):  # Python 3.12, and 3.10 and 3.11 since their security releases
            archive.extractall(into, filter="data")
        else:
            archive.extractall(into)
    (repo,) = [p for p in into.iterdir() if p.is_dir()]
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"lightning-thunder main ({tarball.name})")
    return repo


def upstream_text(path: str, text: str) -> str:
    """A file as upstream keeps it: tests import their harness from the package."""
    if path.startswith("thunder/tests/"):
        text = re.sub(r"^from fastpath_harness import", "from thunder.tests.fastpath_harness import", text, flags=re.M)
    return text


def commit_piece(repo: pathlib.Path, piece: Piece) -> None:
    for path in piece.files:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(upstream_text(path, (ROOT / path).read_text()))
    for hook in piece.hooks:
        git(repo, "apply", "--whitespace=nowarn", str(HOOKS / hook))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{piece.subject}\n\n{piece.body}\n")


def generate(tarball: pathlib.Path, out: pathlib.Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = unpack_base(tarball, pathlib.Path(tmp))
        for piece in SERIES:
            commit_piece(repo, piece)
        for old in out.glob("*.patch"):
            old.unlink()
        git(repo, "format-patch", "-q", "--zero-commit", "--no-signature", "-o", str(out), f"HEAD~{len(SERIES)}")


def check(tarball: pathlib.Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp)
        generate(tarball, fresh)
        names = sorted(p.name for p in fresh.glob("*.patch"))
        committed = sorted(p.name for p in OUT.glob("*.patch"))
        differ = [n for n in names if n in committed and not filecmp.cmp(fresh / n, OUT / n, shallow=False)]
        if names != committed or differ:
            print("upstream/ is not what tools/upstream_patch.py generates from this tree:")
            for n in sorted(set(names) ^ set(committed)):
                print(f"  {'missing' if n in names else 'not generated'}: {n}")
            for n in differ:
                print(f"  differs: {n}")
            print("run: python tools/upstream_patch.py")
            return 1
    print(f"upstream/: the {len(names)} committed patches are those this tree generates")
    return 0


def apply(tarball: pathlib.Path, into: pathlib.Path) -> None:
    """Upstream main with the committed series applied (``git am``) in ``into``/lightning-thunder."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    repo = unpack_base(tarball, into)
    patches = sorted(str(p) for p in OUT.glob("*.patch"))
    git(repo, "am", "-q", *patches)
    print(f"{repo}: {len(patches)} patches applied with git am")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tarball", help="lightning-thunder main's source snapshot (.tar.gz)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare upstream/ with what this tree generates")
    mode.add_argument("--apply", metavar="DIR", help="apply the committed series to upstream main in DIR")
    mode.add_argument("--list-tests", action="store_true", help="print the moved test modules' names")
    args = parser.parse_args(argv)
    if args.list_tests:
        tests = [p for p in _moved_tests() if pathlib.Path(p).name.startswith("test_")]
        print(" ".join(p.removesuffix(".py").replace("/", ".") for p in tests))
        return 0
    tarball = tarball_path(args.tarball)
    if args.check:
        return check(tarball)
    if args.apply:
        apply(tarball, pathlib.Path(args.apply).resolve())
        return 0
    generate(tarball, OUT)
    print(f"upstream/: {len(SERIES)} patches written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

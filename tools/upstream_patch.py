"""The fast path as a stack of pull requests against lightning-thunder main, made from this tree.

    python tools/upstream_patch.py              # writes upstream/NN-name/*.patch for each pull request of STACK
    python tools/upstream_patch.py --check      # fails if upstream/ differs from what this tree generates
    python tools/upstream_patch.py --apply DIR [--through NN]  # upstream main in DIR, the stack applied by `git am`
    python tools/upstream_patch.py --list-prs   # the pull requests' folders, in merge order
    python tools/upstream_patch.py --list-tests [NN]  # a pull request's test modules (all: every one) for --pyargs

Upstream main is read from its source snapshot (``--tarball``, else ``$THUNDER_UPSTREAM_TARBALL``, else
``../shared/upstream/lightning-thunder-1e22aac.tar.gz`` from the checkout's root), committed as the base. Each
``Piece`` of a ``PullRequest`` then becomes one commit: this tree's files copied to where upstream keeps them
(``upstream_path``: the tests' modules named ``test_fastpath_*``), and the hand-written diffs of ``upstream/hooks/``
applied to the files there (the lines where Thunder calls the fast path's entry points, ``thunder/fastpath/entry.py``).
A copied file changes in two ways only: the tests import their harness as ``thunder.tests.fastpath_harness`` (upstream's
tests are a package; here pytest finds the harness beside them), and the lines between ``# overlay: begin`` and
``# overlay: end`` are left out (they install the entry points into a Thunder without them, ``overlay.py``, which is not
part of the stack either). A file that a later pull request extends marks what that one adds: lines between
``# stack: from NN-name`` and ``# stack: end`` (``.. stack:`` in reST) are left out of the file before pull request
NN, and kept, without the two marker lines, from it on; a piece of NN copies the file again. Each folder also holds
the pull request's description, ``PR.md``, written by hand.

Commits carry a fixed author and date and the patches no commit ids, so the same tree always gives the same stack:
CI runs ``--check``, so that the overlay and the stack cannot drift apart.
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
import textwrap
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


def _tests(*names: str) -> tuple[str, ...]:
    return tuple(f"thunder/tests/test_{name}.py" for name in names)


# This tree's test modules under the names they have upstream, where those differ.
UPSTREAM_NAMES = {
    "thunder/tests/test_overhead.py": "thunder/tests/test_fastpath.py",
    **{
        f"thunder/tests/test_{name}.py": f"thunder/tests/test_fastpath_{name}.py"
        for name in (
            "aliasing_and_layouts",
            "autocast_and_grad_mode",
            "autograd",
            "cache_semantics",
            "cuda_graphs",
            "explain",
            "generated_sequences",
            "guard_checks",
            "guard_codegen",
            "guards",
            "lifetimes_and_threads",
            "modules",
            "nvfuser_regions",
            "thunderfx",
        )
    },
}


def upstream_path(path: str) -> str:
    return UPSTREAM_NAMES.get(path, path)


class Piece(NamedTuple):
    subject: str
    body: str
    files: tuple[str, ...]  # this tree's files, copied to upstream_path(file)
    hooks: tuple[str, ...] = ()  # upstream/hooks/*.diff, applied to upstream's files


class PullRequest(NamedTuple):
    folder: str  # upstream/<folder>/: its patches and PR.md
    pieces: tuple[Piece, ...]
    tests: tuple[str, ...] = ()  # this tree's test modules that are the pull request's own

    def test_modules(self) -> list[str]:
        """The pull request's tests as ``pytest --pyargs`` names, where upstream keeps them."""
        return [upstream_path(p).removesuffix(".py").replace("/", ".") for p in self.tests]


CACHE_PATH_TESTS = _tests(
    "overhead",
    "cache_semantics",
    "aliasing_and_layouts",
    "autocast_and_grad_mode",
    "lifetimes_and_threads",
    "guard_codegen",
    "explain",
    "generated_sequences",
)

STACK = (
    PullRequest(
        "01-autograd-placeholder",
        (
            Piece(
                "torch_autograd: the link between split autograd's two functions without torch.randn",
                "ThunderFunction.forward returns, and ThunderOutputFunction.backward passes back, a one-element "
                "meta tensor that only links the two nodes in the autograd graph. torch.randn on the meta device "
                "runs its decompositions on every training call; torch.empty makes the same placeholder without "
                "them.",
                _tests("autograd_placeholder"),
                ("autograd_placeholder.diff",),
            ),
        ),
        _tests("autograd_placeholder"),
    ),
    PullRequest(
        "02-guard-checks",
        (
            Piece(
                "fastpath: the checks a cache entry's guard is made of",
                "A cache hit runs the entry's prologue after populate_cache_info has filled a dict from torch's "
                "state; its checks are generic function calls. The parts of a guard that answer the same questions "
                "with generated code: torch's global state read directly (state_checks.py), all tensors' metadata "
                "in one C++ call (dynamo's TensorGuards) with a per-tensor check that agrees with "
                "check_tensor_metadata, and the aliasing by storage pointers (tensor_checks.py), as steps that "
                "compile to straight-line Python (guard_steps.py, codegen.py). Nothing calls them yet.",
                (
                    "thunder/fastpath/__init__.py",
                    *_fastpath("codegen", "guard_steps", "tensor_checks", "state_checks"),
                    *_tests("guard_checks"),
                ),
            ),
        ),
        _tests("guard_checks"),
    ),
    PullRequest(
        "03-fastpath-guards",
        (
            Piece(
                "fastpath: guards generated from each cache entry's prologue",
                "build_guard translates one entry's prologue trace, once, into a Guard: the prologue's own lines "
                "(the same unpacking, each check_* written out), then the global-state, tensor and aliasing checks. "
                "It returns what the prologue returns, MISS where the prologue would fail and DECLINE where it "
                "cannot tell (the cache lookup decides). Nothing calls it yet; the tests build guards from the "
                "entries of callables jitted as today and hold them against their prologues.",
                (*_fastpath("prologue_checks", "guard"), *_tests("guards")),
            ),
        ),
        _tests("guards"),
    ),
    PullRequest(
        "04-jit-fastpath",
        (
            Piece(
                "jit: fastpath=True, cache hits served by generated functions",
                "Each cache entry gets one generated function: its guard, the call statistics, the computation "
                "(with grad mode switched off only where it can change the outputs) and the epilogue, nothing else "
                "(NOTE: The stages of a hit). The jitted callable tries them in the cache's order; every call that "
                "none of them serves goes through fn_ unchanged, after which the entry it used gets its function. "
                "thunder.fastpath.recompile_reasons(f) says which check of each entry a miss failed, stats(f) "
                "what f did. jit(fn, fastpath=None | True | False): off unless asked for (THUNDER_FASTPATH, "
                "enable() and disable() set the default); a callable or entry that the fast path does not serve "
                "(an entry with a backward, until the autograd connection) says why in a FastPathDeclinedWarning. "
                "Several threads may call one fast callable (NOTE: Threads).",
                (
                    "thunder/fastpath/__init__.py",
                    *_fastpath("publication", "hit_function", "explain", "dispatch", "grad_mode", "switch", "entry"),
                    "docs/source/reference/fastpath/index.rst",
                ),
                ("jit_fastpath.diff",),
            ),
            Piece(
                "tests: the fast path against the path without it, call by call",
                "Each test jits a callable twice, fastpath=False and True, makes the same calls on both and "
                "requires after each the same outputs bitwise (or exception type), in-place updates, cache hits "
                "and misses, and, where a hit is expected, that a guard served it "
                "(fastpath_harness.run_differential).",
                ("thunder/tests/fastpath_harness.py", *CACHE_PATH_TESTS),
                ("test_markers.diff",),
            ),
        ),
        CACHE_PATH_TESTS,
    ),
    PullRequest(
        "05-autograd-connection",
        (
            Piece(
                "fastpath: the autograd connection of a cache hit",
                "Split autograd's ThunderFunction and ThunderOutputFunction with the same names and graph, "
                "changed where a training step pays for nothing: the C++ Function.apply where no functorch "
                "transform is active, and a backward without layers that change nothing. Calls that are connected "
                "without the split go to connect_to_autograd. Entries with a backward get hit functions.",
                (*_fastpath("autograd", "dispatch"), *_tests("autograd", "cuda_graphs")),
            ),
        ),
        _tests("autograd", "cuda_graphs"),
    ),
    PullRequest(
        "06-nvfuser-regions",
        (
            Piece(
                "nvFuser: regions that reuse their FusionDefinition on the fast path",
                "FusionDefinitionWrapper.__call__ recomputes every input's descriptor to look its definition up. "
                "A FusionRegion keeps the definition of the last input layout, checks the layout in one "
                "TensorGuards call and calls FusionExecutorCache.execute directly; a hit whose computation is one "
                "region call calls the executor itself. create_fusion_definition_wrapper returns one for callables "
                "whose fastpath compile option is on, and the wrapper itself otherwise.",
                (*_fastpath("nvfuser", "hit_function"), *_tests("nvfuser_regions")),
                ("nvfuser_region.diff",),
            ),
        ),
        _tests("nvfuser_regions"),
    ),
    PullRequest(
        "07-module-call",
        (
            Piece(
                "fastpath: a ThunderModule called without nn.Module.__call__",
                "nn.Module.__call__ reads the compiled-call slot, the tracing state and eight hook dicts before "
                "forward calls _forward_fn. A module that takes the fast path is a FastThunderModule, whose "
                "__call__ goes straight to the fast path's dispatcher while none of that state asks for anything.",
                (*_fastpath("module", "dispatch", "entry"), *_tests("modules")),
            ),
        ),
        _tests("modules"),
    ),
    PullRequest(
        "08-thunderfx-split-module-call",
        (
            Piece(
                "ThunderFX: the split module called without nn.Module.__call__ on the fast path",
                "Dynamo calls a backend's result through torch._dynamo.disable, which wraps the split GraphModule "
                "that ThunderCompiler returns in an OptimizedModule: two nn.Module.__call__ and GraphModule's "
                "_WrappedCall run around the split module's forward on every call of the graph. Where its regions "
                "take the fast path, ThunderCompiler returns a function that calls forward itself while "
                "nn.Module.__call__ would do nothing else, and the disabled split module otherwise (NOTE: The "
                "split module's call), as Dynamo's own eager backend returns gm.forward.",
                (*_fastpath("thunderfx"), *_tests("thunderfx")),
                ("thunderfx_graph.diff",),
            ),
        ),
        _tests("thunderfx"),
    ),
    PullRequest(
        "09-small-graph-benchmark",
        (
            Piece(
                "benchmarks: small_graph.py, per-call overhead on small graphs",
                "Eager PyTorch, jit without and with the fast path (and the entry's computation called directly, "
                "nvFuser's own executor, torch.compile and ThunderFX on request) side by side in one process, on "
                "the graphs of #1657 and #2775 and a few more; medians, ratios and whether outputs are bitwise "
                "equal.",
                ("thunder/benchmarks/small_graph.py",),
            ),
        ),
    ),
    PullRequest(
        "10-fastpath-on-by-default",
        (
            Piece(
                "jit: the fast path on by default",
                "thunder.jit(fn) takes the fast path unless THUNDER_FASTPATH is 0/false/off/no, disable() was "
                "called or fastpath=False is given.",
                (),
                ("default_on.diff",),
            ),
        ),
        _tests("overhead"),
    ),
)
SERIES = tuple(piece for pr in STACK for piece in pr.pieces)


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


OVERLAY_LINES = re.compile(r"^# overlay: begin\b.*?^# overlay: end\n", re.M | re.S)


STACK_BLOCK = re.compile(r"^[ \t]*(?:#|\.\.) stack: from (\S+)\n(.*?)^[ \t]*(?:#|\.\.) stack: end\n", re.M | re.S)


def upstream_text(path: str, text: str, folder: str) -> str:
    """A file as upstream keeps it after the pull request ``folder``: tests import their harness from the package; no
    lines for the overlay; the blocks of later pull requests left out."""
    if path.startswith("thunder/tests/"):
        text = re.sub(r"^from fastpath_harness import", "from thunder.tests.fastpath_harness import", text, flags=re.M)
    order = [pr.folder for pr in STACK]

    def at_stage(block: re.Match) -> str:
        if block[1] not in order:
            sys.exit(f"upstream_patch: {path}: '# stack: from {block[1]}' names no pull request of STACK")
        return block[2] if order.index(block[1]) <= order.index(folder) else ""

    return STACK_BLOCK.sub(at_stage, OVERLAY_LINES.sub("", text))


def commit_piece(repo: pathlib.Path, piece: Piece, folder: str) -> None:
    for path in piece.files:
        target = repo / upstream_path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(upstream_text(path, (ROOT / path).read_text(), folder))
    for hook in piece.hooks:
        git(repo, "apply", "--whitespace=nowarn", str(HOOKS / hook))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{piece.subject}\n\n{textwrap.fill(piece.body, width=100)}\n")


def generate(tarball: pathlib.Path, out: pathlib.Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = unpack_base(tarball, pathlib.Path(tmp))
        copied: set[str] = set()
        for pr in STACK:
            for piece in pr.pieces:
                commit_piece(repo, piece, pr.folder)
            files = {p for piece in pr.pieces for p in piece.files}
            for path in sorted(copied - files):
                if any(block[1] == pr.folder for block in STACK_BLOCK.finditer((ROOT / path).read_text())):
                    sys.exit(f"upstream_patch: {path} has blocks for {pr.folder}: a piece of it must copy the file")
            copied |= files
            folder = out / pr.folder
            folder.mkdir(parents=True, exist_ok=True)
            for old in folder.glob("*.patch"):
                old.unlink()
            n = len(pr.pieces)
            git(repo, "format-patch", "-q", "--zero-commit", "--no-signature", "-o", str(folder), f"HEAD~{n}")


def _patches(root: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.glob("*/*.patch"))


def check(tarball: pathlib.Path) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp)
        generate(tarball, fresh)
        names, committed = _patches(fresh), _patches(OUT)
        differ = [n for n in names if n in committed and not filecmp.cmp(fresh / n, OUT / n, shallow=False)]
        missing_text = [pr.folder for pr in STACK if not (OUT / pr.folder / "PR.md").is_file()]
        if names != committed or differ or missing_text:
            print("upstream/ is not what tools/upstream_patch.py generates from this tree:")
            for n in sorted(set(names) ^ set(committed)):
                print(f"  {'missing' if n in names else 'not generated'}: {n}")
            for n in differ:
                print(f"  differs: {n}")
            for folder in missing_text:
                print(f"  no description: {folder}/PR.md")
            print("run: python tools/upstream_patch.py (and write the PR.md of each pull request)")
            return 1
    print(f"upstream/: the {len(STACK)} pull requests' {len(names)} patches are those this tree generates")
    return 0


def stack_through(through: str | None) -> tuple[PullRequest, ...]:
    if through is None:
        return STACK
    ends = [i for i, pr in enumerate(STACK) if pr.folder.split("-")[0] == through or pr.folder == through]
    if not ends:
        sys.exit(f"upstream_patch: no pull request {through!r} (see --list-prs)")
    return STACK[: ends[0] + 1]


def apply(tarball: pathlib.Path, into: pathlib.Path, through: str | None) -> None:
    """Upstream main with the committed stack (through the pull request ``through``) applied by ``git am``, in
    ``into``/lightning-thunder."""
    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    repo = unpack_base(tarball, into)
    applied = stack_through(through)
    for pr in applied:
        git(repo, "am", "-q", *sorted(str(p) for p in (OUT / pr.folder).glob("*.patch")))
    print(f"{repo}: {', '.join(pr.folder for pr in applied)} applied with git am")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tarball", help="lightning-thunder main's source snapshot (.tar.gz)")
    parser.add_argument("--through", metavar="NN", help="with --apply: the last pull request to apply")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare upstream/ with what this tree generates")
    mode.add_argument("--apply", metavar="DIR", help="apply the committed stack to upstream main in DIR")
    mode.add_argument("--list-prs", action="store_true", help="print the pull requests' folders in merge order")
    mode.add_argument("--list-tests", nargs="?", const="all", metavar="NN", help="print a pull request's tests")
    args = parser.parse_args(argv)
    if args.list_prs:
        print(" ".join(pr.folder for pr in STACK))
        return 0
    if args.list_tests:
        prs = STACK if args.list_tests == "all" else stack_through(args.list_tests)[-1:]
        print(" ".join(dict.fromkeys(m for pr in prs for m in pr.test_modules())))
        return 0
    tarball = tarball_path(args.tarball)
    if args.check:
        return check(tarball)
    if args.apply:
        apply(tarball, pathlib.Path(args.apply).resolve(), args.through)
        return 0
    generate(tarball, OUT)
    print(f"upstream/: {len(STACK)} pull requests, {len(SERIES)} patches written")
    return 0


if __name__ == "__main__":
    sys.exit(main())

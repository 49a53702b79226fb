"""The stack of pull requests against lightning-thunder main (``upstream/NN-name/``), and Thunder built with it.

    python tools/stack.py install [--base 0.2.6|main|PATH] [--through NN] [--target DIR]  # Thunder with the stack
    python tools/stack.py checkout DIR [--base ...] [--through NN]  # a git repo: the base, then one commit per PR
    python tools/stack.py export DIR   # DIR's commits back into upstream/NN-name/*.patch, and the files they add
    python tools/stack.py check        # the stack applies to main, and the tree's copies of the files it adds agree
    python tools/stack.py adjust --base 0.2.6  # writes upstream/base-0.2.6/NN-name.patch where a file does not apply
    python tools/stack.py prs          # the pull requests in merge order, with their changed lines
    python tools/stack.py tests [NN]   # the test modules of pull request NN (of the whole stack without NN)

Bases: ``main`` is lightning-thunder main 1e22aac, from its source archive (``--tarball``, else
``$THUNDER_MAIN_TARBALL``, else ``../shared/upstream/lightning-thunder-1e22aac.tar.gz`` from the checkout's root);
``0.2.6`` is the registry's lightning-thunder 0.2.6 wheel; PATH is a folder with a Thunder source tree or an unpacked
wheel. Each pull request is one ``git format-patch`` file, applied with ``git am``. On a base where a file of a pull
request does not apply as it is, ``upstream/base-<base>/NN-name.patch`` holds that file's change made for that base,
and the pull request's patch is applied without the files it names (``checkout`` and ``install`` say which).
``adjust`` writes such a file for each pull request that needs one and has none, by applying the file's change with
fewer lines of context: review each before committing it.

``install`` builds a wheel of the patched Thunder and installs it into the running Python (``pip install
--force-reinstall --no-deps``), and installs the unpatched base into ``.thunder-unpatched/`` (``pip install --target``),
for side-by-side comparisons (``thunder/benchmarks/small_graph.py --main .thunder-unpatched``).

The tree holds, besides the patches, a copy of each file that the stack adds (``thunder/tests/test_*.py``,
``thunder/benchmarks/small_graph.py``): ``export`` writes them, ``check`` compares them with the stack's.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
STACK = ROOT / "upstream"
DEFAULT_TARBALL = ROOT.parent / "shared" / "upstream" / "lightning-thunder-1e22aac.tar.gz"
UNPATCHED = ROOT / ".thunder-unpatched"
RELEASE = "0.2.6"
# Fixed identity and dates: the same patches always make the same commits.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "thunder-fastpath",
    "GIT_AUTHOR_EMAIL": "thunder-fastpath@users.noreply.github.com",
    "GIT_AUTHOR_DATE": "2026-01-29T12:00:00+00:00",
    "GIT_COMMITTER_NAME": "thunder-fastpath",
    "GIT_COMMITTER_EMAIL": "thunder-fastpath@users.noreply.github.com",
    "GIT_COMMITTER_DATE": "2026-01-29T12:00:00+00:00",
}


def prs() -> list[pathlib.Path]:
    """The pull requests' folders, in merge order."""
    return sorted(p for p in STACK.iterdir() if p.is_dir() and re.match(r"\d\d-", p.name))


def pr_patch(pr: pathlib.Path) -> pathlib.Path:
    (patch,) = sorted(pr.glob("*.patch"))
    return patch


def select(through: str | None) -> list[pathlib.Path]:
    """The pull requests up to and including ``through`` (its number or folder name; 00 for none), all of them for
    None."""
    folders = prs()
    if through is None:
        return folders
    if through in ("0", "00"):
        return []  # the base alone
    n = [i for i, p in enumerate(folders) if p.name.split("-")[0] == through.split("-")[0]]
    if not n:
        sys.exit(f"no pull request {through!r} in {STACK}")
    return folders[: n[0] + 1]


def git(repo: pathlib.Path, *args: str, **kwargs) -> str:
    env = {**os.environ, **GIT_ENV}
    out = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True, **kwargs)
    return out.stdout


def files_of(patch: pathlib.Path) -> list[str]:
    return re.findall(r"^diff --git a/(\S+) b/", patch.read_text(), flags=re.M)


def changed_elsewhere(patch: pathlib.Path, repo: pathlib.Path) -> list[str]:
    """The files that ``patch`` changes and ``repo`` does not have (a source archive has no docs/, a wheel has
    thunder/ alone): left out where the pull request is applied."""
    text = patch.read_text()
    new = set(re.findall(r"^diff --git a/\S+ b/(\S+)\nnew file mode", text, flags=re.M))
    return [f for f in files_of(patch) if f not in new and not (repo / f).exists()]


# ---------------------------------------------------------------------------------------------------- bases
def unpack_base(base: str, into: pathlib.Path, tarball: str | None) -> str:
    """Unpacks ``base`` into the empty folder ``into``; returns the base's name for adjustments (main, 0.2.6)."""
    if base == "main":
        path = pathlib.Path(tarball or os.environ.get("THUNDER_MAIN_TARBALL") or DEFAULT_TARBALL)
        with tempfile.TemporaryDirectory() as tmp, tarfile.open(path) as tar:
            tar.extractall(tmp, filter="data")
            (top,) = pathlib.Path(tmp).iterdir()
            shutil.copytree(top, into, dirs_exist_ok=True)
        return "main"
    if base == RELEASE:
        with tempfile.TemporaryDirectory() as tmp:
            pip("download", "--no-deps", "--dest", tmp, f"lightning-thunder=={RELEASE}")
            (wheel,) = pathlib.Path(tmp).glob("lightning_thunder-*.whl")
            with zipfile.ZipFile(wheel) as z:
                z.extractall(into)
        return RELEASE
    path = pathlib.Path(base)
    if not (path / "thunder" / "__init__.py").exists():
        sys.exit(f"{base}: not a folder with Thunder's source (thunder/__init__.py)")
    shutil.copytree(path, into, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    return "0.2.6" if any(into.glob(f"lightning_thunder-{RELEASE}.dist-info")) else "main"


def applies(repo: pathlib.Path, patch: pathlib.Path, path: str) -> bool:
    """Whether ``patch``'s change of the file ``path`` applies to ``repo`` as it is."""
    check = ["git", "apply", "--check", f"--include={path}", str(patch)]
    return subprocess.run(check, cwd=repo, capture_output=True).returncode == 0


def checkout(
    into: pathlib.Path, base: str, through: str | None, tarball: str | None = None, adjusting: bool = False
) -> list[str]:
    """A git repo at ``into``: the base's files committed, then each pull request as one commit. Returns what was
    adjusted for the base, one line per pull request that needed it. ``adjusting``: writes the adjustment of each pull
    request that needs one and has none."""
    if into.exists() and any(into.iterdir()):
        sys.exit(f"{into} exists and is not empty")
    into.mkdir(parents=True, exist_ok=True)
    name = unpack_base(base, into, tarball)
    git(into, "init", "-q")
    git(into, "add", "-A", "-f")
    git(into, "commit", "-q", "-m", f"lightning-thunder {base}")
    adjusted = []
    for pr in select(through):
        patch = pr_patch(pr)
        missing = changed_elsewhere(patch, into)
        adjustment = STACK / f"base-{name}" / f"{pr.name}.patch"
        if adjusting and not adjustment.exists():
            failing = [f for f in files_of(patch) if f not in missing and not applies(into, patch, f)]
            if failing:
                for context in (2, 1, 0):  # the fewest lines of context that each hunk must match
                    apply = ["apply", f"-C{context}", "--index", *(f"--include={f}" for f in failing), str(patch)]
                    if subprocess.run(["git", *apply], cwd=into, capture_output=True).returncode == 0:
                        break
                else:
                    sys.exit(f"{pr.name}: {', '.join(failing)} do not apply to {base} even without context")
                adjustment.parent.mkdir(parents=True, exist_ok=True)
                adjustment.write_text(git(into, "diff", "--cached", "--", *failing))
                git(into, "reset", "-q", "--hard")
                print(
                    f"wrote {adjustment.relative_to(ROOT)} for {', '.join(failing)}"
                    f" ({context} lines of context): review it"
                )
        excluded = files_of(adjustment) if adjustment.exists() else []
        try:
            git(into, "am", "-q", *(f"--exclude={f}" for f in excluded + missing), str(patch))
        except subprocess.CalledProcessError as e:
            git(into, "am", "--abort")
            sys.exit(f"{pr.name} does not apply to {base} (see tools/stack.py adjust):\n{e.stderr}")
        if excluded:
            git(into, "apply", "--index", str(adjustment))
            git(into, "commit", "-q", "--amend", "--no-edit")
            adjusted.append(f"{pr.name}: {', '.join(excluded)} from {adjustment.relative_to(ROOT)}")
    return adjusted


# ---------------------------------------------------------------------------------------------------- install
def pip(*args: str, target_python: str = sys.executable) -> None:
    subprocess.run([target_python, "-m", "pip", "-q", *args], check=True)


def pack_wheel(unpacked: pathlib.Path, into: pathlib.Path) -> pathlib.Path:
    """A wheel of the unpacked wheel ``unpacked`` (its RECORD made anew: files have changed)."""
    (info,) = unpacked.glob("*.dist-info")
    record = info / "RECORD"
    lines = []
    for path in sorted(p for p in unpacked.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        rel = path.relative_to(unpacked).as_posix()
        if path == record or rel.startswith(".git/"):
            continue
        data = path.read_bytes()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        lines.append(f"{rel},sha256={digest},{len(data)}")
    lines.append(f"{record.relative_to(unpacked).as_posix()},,")
    record.write_text("\n".join(lines) + "\n")
    wheel = into / f"{info.name.removesuffix('.dist-info')}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for line in lines:
            rel = line.split(",")[0]
            z.write(unpacked / rel, rel)
    return wheel


def install(
    base: str, through: str | None, tarball: str | None, target: str | None = None, unpatched: bool = True
) -> None:
    """Builds Thunder with the stack on ``base`` and installs it into the running Python, or into the folder
    ``target`` (``pip install --target``: a Thunder to put on ``PYTHONPATH``); the unpatched base into
    ``.thunder-unpatched/``."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = pathlib.Path(tmp) / "thunder"
        for line in checkout(repo, base, through, tarball):
            print(f"adjusted for {base}: {line}")
        if any(repo.glob("*.dist-info")):
            shutil.rmtree(repo / ".git")
            built = pack_wheel(repo, pathlib.Path(tmp))
        else:
            pip("wheel", "--no-deps", "-w", tmp, str(repo))
            (built,) = pathlib.Path(tmp).glob("*.whl")
        if target is None:
            pip("install", "--force-reinstall", "--no-deps", str(built))
        else:
            shutil.rmtree(target, ignore_errors=True)
            pip("install", "--no-deps", "--target", target, str(built))
        if not unpatched:
            pass
        elif base == RELEASE:
            shutil.rmtree(UNPATCHED, ignore_errors=True)
            pip("install", "--no-deps", "--target", str(UNPATCHED), f"lightning-thunder=={RELEASE}")
        else:
            shutil.rmtree(UNPATCHED, ignore_errors=True)
            plain = pathlib.Path(tmp) / "unpatched"
            unpack_base(base, plain, tarball)
            pip("install", "--no-deps", "--target", str(UNPATCHED), str(plain))
    n = len(select(through))
    where = f"in {target}/" if target else "installed"
    print(f"Thunder ({base}) with {n} pull request(s) of the stack {where}", end="")
    print(f"; unpatched in {UNPATCHED.name}/" if unpatched else "")


# ---------------------------------------------------------------------------------------------------- export, check
def added_files(repo: pathlib.Path, base: str) -> list[str]:
    """The files that the stack adds, in a checkout of it whose base is the commit ``base``."""
    return git(repo, "diff", "--name-only", "--diff-filter=A", base, "HEAD").split()


def root(repo: pathlib.Path) -> str:
    return git(repo, "rev-list", "--max-parents=0", "HEAD").strip()


def export(repo: pathlib.Path, base: str | None) -> None:
    """``repo``'s commits after ``base`` (default: its first commit) into the pull requests' folders, in order."""
    base = base or root(repo)
    commits = git(repo, "rev-list", "--reverse", f"{base}..HEAD").split()
    folders = prs()
    if len(commits) != len(folders):
        sys.exit(f"{repo} has {len(commits)} commits after its base, the stack {len(folders)} pull requests")
    for commit, folder in zip(commits, folders, strict=True):
        for old in folder.glob("*.patch"):
            old.unlink()
        git(repo, "format-patch", "-q", "-1", commit, "--zero-commit", "--no-signature", "-o", str(folder))
    added = added_files(repo, base)
    for old in [p for d in ("thunder", "docs") for p in (ROOT / d).rglob("*") if p.is_file()]:
        if old.relative_to(ROOT).as_posix() not in added:
            old.unlink()
    for rel in added:
        (ROOT / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / rel, ROOT / rel)
    print(f"exported {len(commits)} pull requests and {len(added)} added files from {repo}")


def check(tarball: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = pathlib.Path(tmp) / "thunder"
        checkout(repo, "main", None, tarball)
        added = set(added_files(repo, root(repo)))
        in_tree = {
            p.relative_to(ROOT).as_posix() for d in ("thunder", "docs") for p in (ROOT / d).rglob("*") if p.is_file()
        }
        in_tree = {p for p in in_tree if "__pycache__" not in p}
        problems = [f"only in the tree: {p}" for p in sorted(in_tree - added)]
        problems += [f"not in the tree: {p}" for p in sorted(added - in_tree)]
        problems += [
            f"differs from the stack's: {p}"
            for p in sorted(added & in_tree)
            if (repo / p).read_bytes() != (ROOT / p).read_bytes()
        ]
    if problems:
        sys.exit("\n".join(problems))
    print(f"the stack applies to main; the tree's {len(added)} copies of the files it adds agree")


def changed_lines(patch: pathlib.Path) -> tuple[int, int]:
    """Lines added or removed by a patch: (in tests, elsewhere)."""
    tests = other = 0
    current = ""
    for line in patch.read_text().splitlines():
        if line.startswith("diff --git"):
            current = line.split(" b/")[-1]
        elif (line.startswith("+") or line.startswith("-")) and not line.startswith(("+++", "---")):
            if "/tests/" in current:
                tests += 1
            else:
                other += 1
    return tests, other


def test_modules(pr: pathlib.Path | None) -> list[str]:
    patches = [pr_patch(pr)] if pr is not None else [pr_patch(p) for p in prs()]
    files = {f for patch in patches for f in files_of(patch)}
    tests = sorted(f for f in files if re.fullmatch(r"thunder/tests/test_\w+\.py", f))
    if pr is None:  # the whole stack: the test modules it adds
        tests = [f for f in tests if (ROOT / f).exists()]
    return [f.removesuffix(".py").replace("/", ".") for f in tests]


def added_tests_keyword(pr: pathlib.Path) -> str:
    """Where ``pr`` adds tests to a test module of Thunder's own (one that it does not add), a ``pytest -k`` expression
    that selects the tests it adds, so that its own tests run without the rest of that module; else ``""``."""
    text = pr_patch(pr).read_text()
    # The tree holds a copy of each file that the stack adds (export): a test module without one is Thunder's own
    shipped = [
        f for f in files_of(pr_patch(pr)) if re.fullmatch(r"thunder/tests/test_\w+\.py", f) and not (ROOT / f).exists()
    ]
    if not shipped:
        return ""
    return " or ".join(re.findall(r"^\+def (test_\w+)\(", text, flags=re.M))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("install", "checkout"):
        p = sub.add_parser(name)
        if name == "checkout":
            p.add_argument("dir", type=pathlib.Path)
        p.add_argument("--base", default=RELEASE if name == "install" else "main")
        p.add_argument("--through", help="the last pull request to apply (its number), default all")
        p.add_argument("--tarball", help="main's source archive")
        if name == "install":
            p.add_argument("--target", help="a folder to install into instead of the running Python")
            p.add_argument("--no-unpatched", action="store_true", help=f"leave {UNPATCHED.name}/ as it is")
    p = sub.add_parser("export")
    p.add_argument("dir", type=pathlib.Path)
    p.add_argument("--base", help="the commit that the stack starts from (default: the first commit)")
    sub.add_parser("check").add_argument("--tarball")
    p = sub.add_parser("adjust")
    p.add_argument("--base", default=RELEASE)
    p.add_argument("--tarball")
    sub.add_parser("prs")
    p = sub.add_parser("tests")
    p.add_argument("pr", nargs="?")
    p.add_argument("--keyword", action="store_true", help="the pytest -k expression of the tests that pr adds")
    args = parser.parse_args(argv)
    if args.command == "install":
        install(args.base, args.through, args.tarball, args.target, not args.no_unpatched)
    elif args.command == "checkout":
        for line in checkout(args.dir, args.base, args.through, args.tarball):
            print(f"adjusted for {args.base}: {line}")
        print(f"{args.dir}: {args.base} and {len(select(args.through))} pull request(s), one commit each")
    elif args.command == "export":
        export(args.dir, args.base)
    elif args.command == "check":
        check(args.tarball)
    elif args.command == "adjust":
        with tempfile.TemporaryDirectory() as tmp:
            for line in checkout(pathlib.Path(tmp) / "thunder", args.base, None, args.tarball, adjusting=True):
                print(f"adjusted for {args.base}: {line}")
    elif args.command == "prs":
        for pr in prs():
            tests, other = changed_lines(pr_patch(pr))
            print(f"{pr.name}  {tests + other} changed lines ({other} code, {tests} tests)")
    elif args.command == "tests" and args.keyword:
        print(added_tests_keyword(select(args.pr)[-1]))
    elif args.command == "tests":
        print(" ".join(test_modules(select(args.pr)[-1] if args.pr else None)))


if __name__ == "__main__":
    main()

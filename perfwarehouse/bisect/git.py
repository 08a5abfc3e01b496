"""The git edge of ``perfwarehouse bisect``: resolving revisions, the first-parent line,
and checkouts in worktrees of the bisection's own (never the user's checkout).

Each revision measured gets a detached worktree (``git worktree add --detach``) in a
temporary directory, so its build stays while its trials are interleaved with other
revisions'; the user's HEAD, branch, index and working files are never touched, and
:meth:`Worktrees.close` removes the worktrees and git's records of them.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from perfwarehouse.bisect.results import Commit
from perfwarehouse.errors import UsageError

_FORMAT = "%H%x00%s%x00%aI%x00%cI"


def git(repo: Path, *args: str, check: bool = True) -> str:
    """Run ``git -C repo args``; its stdout. A failure raises :class:`UsageError` naming
    the command and git's first line of complaint."""
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["failed"])[0]
        raise UsageError(f"git {' '.join(args)} in {repo}: {first}")
    return done.stdout


def check_repository(repo: Path) -> Path:
    """The top of the git repository at ``repo`` (an error that says so otherwise)."""
    if shutil.which("git") is None:
        raise UsageError("bisect needs git on the PATH")
    if not repo.is_dir():
        raise UsageError(f"--repo {repo} is not a directory")
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--show-toplevel"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise UsageError(f"--repo {repo} is not a git repository (git rev-parse: "
                         f"{(done.stderr.strip().splitlines() or ['failed'])[0]})")
    return Path(done.stdout.strip())


def resolve(repo: Path, rev: str, option: str) -> str:
    """The full sha of the commit ``rev`` names."""
    done = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet",
                           f"{rev}^{{commit}}"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0 or not done.stdout.strip():
        raise UsageError(f"{option} {rev!r} is not a commit of {repo}")
    return done.stdout.strip()


def commit_info(repo: Path, sha: str) -> Commit:
    """Subject, author date and commit time of one commit."""
    fields = git(repo, "show", "-s", f"--format={_FORMAT}", sha).rstrip("\n").split("\0")
    return Commit(*fields[:4])


def first_parent_line(repo: Path, good: str, bad: str) -> list[Commit]:
    """good, then every commit after it on bad's first-parent line, up to bad (oldest
    first). good must be on that line (an ancestor of bad through first parents)."""
    if good == bad:
        return [commit_info(repo, good)]
    ancestor = subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", good, bad],
                              stdin=subprocess.DEVNULL).returncode == 0
    if not ancestor:
        raise UsageError(f"--good {good[:10]} is not an ancestor of --bad {bad[:10]}: bisect "
                         "looks for the commit between them that changed the performance; "
                         "swap them if the good revision is the newer one")
    out = git(repo, "log", "--first-parent", "--reverse", f"--format={_FORMAT}",
              f"{good}..{bad}")
    line = [Commit(*row.split("\0")[:4]) for row in out.splitlines() if row]
    first_parent = git(repo, "rev-parse", f"{line[0].sha}^1").strip() if line else ""
    if first_parent != good:
        raise UsageError(f"--good {good[:10]} is not on the first-parent line of --bad "
                         f"{bad[:10]} (it is on a merged branch); give a good revision of "
                         "the main line, such as the merge's first parent")
    return [commit_info(repo, good), *line]


def checkout_state(repo: Path) -> tuple[str, str, str]:
    """(HEAD sha, branch or '' when detached, ``git status --porcelain`` text) of the
    user's checkout: what the bisection must leave as it was."""
    head = git(repo, "rev-parse", "HEAD", check=False).strip()
    branch = git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
    status = git(repo, "status", "--porcelain", "--untracked-files=all").strip()
    return head, branch, status


class Worktrees:
    """Detached worktrees of ``repo``, one per revision, under a temporary directory."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.root = Path(tempfile.mkdtemp(prefix="perfwarehouse-bisect-"))
        self.trees: dict[str, Path] = {}

    def add(self, sha: str) -> Path:
        """A checkout of ``sha`` (made once; the same directory on later calls)."""
        if sha not in self.trees:
            path = self.root / sha[:12]
            git(self.repo, "worktree", "add", "--detach", "--force", str(path), sha)
            self.trees[sha] = path
        return self.trees[sha]

    def drop(self, sha: str) -> None:
        """Remove the checkout of ``sha`` (its build with it)."""
        path = self.trees.pop(sha, None)
        if path is not None:
            git(self.repo, "worktree", "remove", "--force", str(path), check=False)
            shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Remove every checkout, git's record of each, and the temporary directory."""
        for sha in list(self.trees):
            self.drop(sha)
        shutil.rmtree(self.root, ignore_errors=True)

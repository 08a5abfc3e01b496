"""Private scratch directories in the system's temporary directory, and the removal of
those that killed processes left behind.

A scratch directory is made by :func:`tempfile.mkdtemp`: a name no other user can guess
or take first, mode 0700, owned by this user. The clean-up of stale ones looks only at
real directories (not links) owned by this user and named ``PREFIX + PID-XXXX`` with 1-10
ASCII digits: whatever another user puts into ``/tmp`` under that prefix (a directory
named ``perfwarehouse-pull-99999999999-x``, non-ASCII digits, a link to somewhere else)
is left alone and never stops the command (issue 44, H4).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_NAME = re.compile(r"([0-9]{1,10})-[A-Za-z0-9_]+", re.ASCII)
PID_MAX = 2**22  # Linux's largest pid_max


@contextmanager
def chunk_dir(prefix: str) -> Iterator[Path]:
    """A fresh private directory ``PREFIX + PID-XXXX`` in the temporary directory, removed
    on exit; the stale ones of this user's killed processes are removed first."""
    remove_stale(prefix)
    with tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-") as tmp:
        yield Path(tmp)


def remove_stale(prefix: str, root: Path | None = None) -> list[Path]:
    """Remove this user's ``PREFIX + PID-XXXX`` directories in ``root`` (the temporary
    directory) whose process is gone; returns them."""
    removed = []
    for path in Path(root or tempfile.gettempdir()).glob(f"{prefix}*-*"):
        match = _NAME.fullmatch(path.name[len(prefix):])
        if match is None:
            continue
        pid = int(match[1])
        try:
            info = path.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() \
                    or pid == os.getpid() or not 0 < pid <= PID_MAX:
                continue
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)  # links inside are removed, not followed
            removed.append(path)
        except OSError:  # alive and someone else's (EPERM), or gone meanwhile
            pass
    return removed

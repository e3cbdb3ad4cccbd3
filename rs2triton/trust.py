"""Whether a folder can hold only what this user (or root) put there: ssh's ``StrictModes``.

rs2triton imports code from its cache folder (``driver/cache.py``, ``loading/loader.py``) and
writes the Rust source into tritonparse traces (``RS2TRITON_TRACE``, ``locations.trace``); both
folders are used only if :func:`untrusted_folder` finds nothing wrong with them. The rule
(docs/usage.md, "Who may feed it"):

- the path is walked from ``/`` one name at a time, as the kernel resolves it, and every folder
  it passes through is checked, the folder itself included: each must belong to root or to this
  user, and be writable by nobody else (neither group nor others), except that a folder with the
  sticky bit (``/tmp``, mode 1777) may be writable by others, since none of them may then rename
  or remove what is not theirs;
- the folder itself must belong to this user and be writable by nobody else, sticky or not;
- a symlink on the way is followed (as the kernel would, 40 at most): only who may write the
  folder holding it could change it, and that folder was checked; the folders it leads through
  are checked in turn. A symlinked folder whose target passes every check is accepted.

So nothing between the check and the use can be renamed, replaced or swapped by another user.
"""

from __future__ import annotations

import os
import stat
from typing import IO, Any

MAX_SYMLINKS = 40  # (Linux's limit on the symlinks one path resolution follows)


def untrusted_folder(folder: str | os.PathLike[str], *, make: bool = True) -> str | None:
    """Why ``folder`` may hold what another user put there (a sentence naming the path at
    fault), or None. With ``make``, a missing folder is made first (0700, its missing parents
    too). An error reaching a folder (a file in the way, no permission) is an ``OSError``."""
    path = os.fspath(folder)
    if make and not os.path.isdir(path):
        os.makedirs(path, mode=0o700, exist_ok=True)
    names = [n for n in os.path.join(os.getcwd(), path).split("/") if n]
    current = "/"
    why = _why(current, os.lstat(current), last=False)
    links = 0
    via = ""  # the last symlink followed, to name in a reason
    while why is None and names:
        name = names.pop(0)
        if name == ".":
            continue
        if name == "..":
            current = os.path.dirname(current)  # (the folder reached so far is real: its parent is)
            continue
        step = os.path.join(current, name)
        st = os.lstat(step)
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > MAX_SYMLINKS:
                return f"{path} goes through more than {MAX_SYMLINKS} symlinks"
            target = os.readlink(step)
            names[:0] = [n for n in target.split("/") if n]
            if target.startswith("/"):
                current = "/"
            via = f" (reached through the symlink {step} -> {target})"
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(20, "not a folder", step)
        current = step
        why = _why(current, st, last=False)
    if why is None:
        why = _why(current, os.stat(current), last=True)
    return None if why is None else why + via


def _why(path: str, st: os.stat_result, *, last: bool) -> str | None:
    """Why the folder ``path`` (its ``lstat``) lets another user change what is in it, or None;
    ``last``: the folder itself (this user's), else one on the way to it (root's or this user's)."""
    uid = os.geteuid()
    if st.st_uid != uid and (last or st.st_uid != 0):
        return f"{path} belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022 and (last or not st.st_mode & stat.S_ISVTX):
        return f"{path} is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def not_private(st: os.stat_result) -> str | None:
    """Why a file or folder (its ``stat``) is not this user's alone, or None: it belongs to
    another user, or others may write it."""
    if st.st_uid != os.geteuid():
        return f"belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def create_private(path: str | os.PathLike[str], mode: str = "w") -> IO[Any]:
    """A new file at ``path``, this user's alone (0600), opened in ``mode`` (``w``, ``a``, with
    ``+`` or ``b``): never through a symlink (``O_NOFOLLOW``), never a file already there
    (``O_EXCL``: a ``FileExistsError``)."""
    flags = os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= os.O_RDWR if "+" in mode else os.O_WRONLY
    if "a" in mode:
        flags |= os.O_APPEND
    fd = os.open(path, flags, 0o600)
    try:
        return os.fdopen(fd, mode.replace("x", "w"), encoding=None if "b" in mode else "utf-8")
    except BaseException:
        os.close(fd)
        raise

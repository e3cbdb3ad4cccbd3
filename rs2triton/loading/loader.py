"""Importing kernels from Python: ``rs2triton.load("kernels_rs/foo.rs")``.

The generated module is written to a content-addressed cache folder and
imported from there (Triton reads a kernel's source through ``inspect``, so it
must live in a real file). The backend is fixed *before* import, because
``@triton.jit`` decides at decoration time whether it builds an interpreted
function.
"""

from __future__ import annotations

import hashlib
import importlib.util
import linecache
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from rs2triton.transpiler.driver import cache
from rs2triton.transpiler.driver.cache import cache_dir
from rs2triton.transpiler.driver.pipeline import Result, debug_build, transpile_file, transpile_file_cached
from rs2triton.trust import not_private

# Transpiling needs none of these; running kernels needs all three (the `run` extra).
RUN_PACKAGES = ("triton", "torch", "numpy")
RUN_EXTRA = "pip install 'rs2triton[run]'"


class MissingExtraError(ImportError):
    """Running kernels needs packages that the light install of rs2triton leaves out."""


def require_run_extra(what: str) -> None:
    """Raise :class:`MissingExtraError`, naming the extra, unless triton, torch and numpy are installed."""
    missing = [m for m in RUN_PACKAGES if importlib.util.find_spec(m) is None]
    if missing:
        raise MissingExtraError(
            f"{what} needs {', '.join(missing)}, which the light install of rs2triton (transpile, check, "
            f"show) leaves out; install the `run` extra: {RUN_EXTRA}")


def gpu_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


class BackendError(RuntimeError):
    """The interpreter/GPU choice conflicts with how Triton was already imported."""


def triton_mode() -> bool | None:
    """True if Triton was imported for its interpreter, False if for compilation, None if not yet.

    Triton decorates its own standard library (``tl.sum``, ``tl.max``...) when it is
    first imported, so the choice is made once per process, at that moment.
    """
    if "triton.language.standard" not in sys.modules:
        return None
    from triton.language import standard
    from triton.runtime.jit import JITFunction

    return not isinstance(standard.sum, JITFunction)


def use_interpreter(interpret: bool | None) -> bool:
    """Whether kernels should run on Triton's CPU interpreter."""
    mode = triton_mode()
    if interpret is None:
        if mode is False and not gpu_available():
            return True  # compiled kernels could not run here: the interpreter (see ensure_mode)
        if mode is not None:
            return mode
        if os.environ.get("TRITON_INTERPRET") == "1":
            return True
        return not gpu_available()
    return interpret


def ensure_mode(interpret: bool) -> None:
    """Fix Triton's mode for this process (before ``triton`` is imported)."""
    mode = triton_mode()
    if mode is False and interpret and not gpu_available():
        _reimport_for_interpreter()  # `import triton` came first, on a machine with no GPU
        return
    if mode is not None and mode != interpret:
        have = "the CPU interpreter" if mode else "compilation"
        want = "the CPU interpreter" if interpret else "compilation"
        raise BackendError(
            f"Triton was already imported for {have} in this process, so kernels cannot use {want}: "
            "the choice is made when `triton` is first imported. Set TRITON_INTERPRET=1 (or unset it) "
            "before anything imports triton, or run the other mode in a separate process.")
    if interpret:
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)


def _reimport_for_interpreter() -> None:
    """Import Triton's Python modules again, in interpreter mode.

    Triton chooses between compiling and interpreting when it is first imported (its standard
    library, ``tl.sum`` and the rest, is decorated then), so a script that imports ``triton``
    before loading a kernel, on a machine with no GPU, would have kernels that cannot run. Its
    compiled mode is of no use there: its Python modules are imported afresh with
    ``TRITON_INTERPRET=1`` (its compiled extension, ``triton._C``, is kept, as it must be).
    Modules imported from then on get the interpreter; names bound before (``triton.cdiv``)
    keep working.
    """
    os.environ["TRITON_INTERPRET"] = "1"
    for name in [n for n in sys.modules if (n == "triton" or n.startswith("triton.")) and not n.startswith("triton._C")]:
        del sys.modules[name]
    importlib.import_module("triton")
    importlib.import_module("triton.language")


def _import_file(py: Path, mod_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(mod_name, py)
    assert spec is not None and spec.loader is not None, "a .py file has a spec"
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(mod_name, None)
        raise
    return module


def load(path: str | os.PathLike[str], *, interpret: bool | None = None, features: Iterable[str] | None = None,
         default_features: bool = True, debug: bool | None = None) -> ModuleType:
    require_run_extra("rs2triton.load")
    p = Path(path)
    interp = use_interpreter(interpret)
    ensure_mode(interp)
    if p.suffix == ".py":
        return _import_file(p.resolve(), f"rs2triton_generated_{_ident(p.stem)}")
    result, py = cached(p, features, default_features, debug)
    digest = py.parent.name
    mod_name = f"rs2triton_generated_{_ident(p.stem)}_{digest}{'_interp' if interp else ''}"
    if mod_name in sys.modules and getattr(sys.modules[mod_name], "__rs2triton_interpret__", None) == interp:
        return sys.modules[mod_name]
    module = ModuleType(mod_name)
    sys.modules[mod_name] = module
    try:
        annotate(module, p, result, interp)
        exec_verified(module, py, text_of(result, p))
    except BaseException:
        sys.modules.pop(mod_name, None)
        raise
    return module


def cached(p: Path, features: Iterable[str] | None = None, default_features: bool = True,
           debug: bool | None = None) -> tuple[Result, Path]:
    """Transpile ``p`` and write the module to the content-addressed cache: (Result, cached .py path).

    Triton reads kernel source through ``inspect``, so the module must live in a real file;
    what runs is what :func:`exec_verified` reads from it.
    """
    # An unchanged source is served from the transpile cache (text and line map), and
    # only parsed again for its kernels' signatures.
    tcache = cache.default()
    debug = debug_build(debug, "rs2triton.load")
    result = transpile_file_cached(p, tcache, features=features, default_features=default_features, debug=debug) \
        if tcache is not None else transpile_file(p, features=features, default_features=default_features, debug=debug)
    text = text_of(result, p)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    py = cache_dir() / "modules" / digest / f"{p.stem}.py"
    try:
        if read_verified(py, text) is None:  # (the module is the text transpiled now, whatever the folder held)
            cache.write_atomic(py, text)
    except OSError as e:
        # A read-only, full or misplaced cache folder: load from a folder of this process's own
        # (removed at exit), and say so once.
        py = _private_dir() / digest / f"{p.stem}.py"
        if read_verified(py, text) is None:
            cache.write_atomic(py, text)
        _warn_cache(e)
    return result, py


def text_of(result: Result, p: Path) -> str:
    """The module transpiled from ``p``; a file that defines no kernel is a ValueError."""
    if result.text is None:
        raise ValueError(f"{p} defines no #[kernel] functions")
    return result.text


def read_verified(py: Path, text: str) -> bytes | None:
    """The bytes of ``py`` where it is a regular file of this user's, writable by nobody else,
    holding exactly ``text``; else None. The file is opened once (never through a symlink, never
    waiting on a FIFO), checked by its descriptor (``fstat``) and read from it: what is returned
    is what was checked, whatever is done to the path meanwhile."""
    data = text.encode("utf-8")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(py, flags)
    except OSError:
        return None
    chunks: list[bytes] = []
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not_private(st) is not None or st.st_size != len(data):
            return None
        left = len(data) + 1  # (one byte more: a file that grew is no match)
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    got = b"".join(chunks)
    return got if got == data else None


def exec_verified(module: ModuleType, py: Path, text: str) -> None:
    """Run ``text``, the module written at ``py``, in ``module``, from the bytes read once from
    the file and checked (:func:`read_verified`), never from the path again: a file that does not
    pass is written again first. The lines are handed to ``linecache`` as read, so what Triton
    reads of a kernel through ``inspect`` is what runs (and no ``__pycache__`` is consulted)."""
    data = read_verified(py, text)
    if data is None:
        cache.write_atomic(py, text)
        data = read_verified(py, text)
        if data is None:
            raise OSError(f"rs2triton: {py} changed as it was written; not imported")
    code = compile(data, str(py), "exec", dont_inherit=True)
    linecache.cache[str(py)] = (len(data), None, data.decode("utf-8").splitlines(True), str(py))
    module.__file__ = str(py)
    exec(code, module.__dict__)  # noqa: S102 - the generated module, as verified


_PRIVATE: list[Path] = []


def _private_dir() -> Path:
    if not _PRIVATE:
        import atexit
        import shutil
        import tempfile

        folder = Path(tempfile.mkdtemp(prefix="rs2triton-modules-"))
        atexit.register(shutil.rmtree, folder, True)
        _PRIVATE.append(folder)
    return _PRIVATE[0]


_WARNED: set[str] = set()


def _warn_cache(e: OSError) -> None:
    where = str(cache_dir())
    if where not in _WARNED:
        import warnings

        _WARNED.add(where)
        warnings.warn(f"rs2triton: cannot write its cache at {where} ({e.strerror or e}); the module is "
                      "loaded from a temporary folder instead (set RS2TRITON_CACHE_DIR to a writable folder, "
                      "or RS2TRITON_NO_CACHE=1)", RuntimeWarning, stacklevel=5)


def annotate(module: ModuleType, source: Path, result: Result, interp: bool) -> None:
    """What rs2triton records on a module it imported (signatures, source, line map, mode)."""
    vars(module).update(__rs2triton_kernels__={k.name: k for k in result.kernels}, __rs2triton_source__=str(source),
                        __rs2triton_line_map__=result.line_map, __rs2triton_interpret__=interp)


def _ident(s: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in s)

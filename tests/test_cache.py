"""The transpile cache: unchanged inputs are not lowered again, and nothing stale is ever served."""

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rs2triton.transpiler.driver import cache, files, pipeline
from tests.conftest import ROOT


@pytest.fixture
def counted(monkeypatch):
    """Counts the files that get lowered (parsed, lowered and printed)."""
    calls = []
    real = pipeline.lower_source

    def spy(source, path="<string>", *rest, **options):
        calls.append(path)
        return real(source, path, *rest, **options)

    monkeypatch.setattr(pipeline, "lower_source", spy)
    return calls


# Every kernels_rs/ file, plus the one `src` adds.
N_INPUTS = len(list((ROOT / "kernels_rs").glob("*.rs"))) + 1


@pytest.fixture
def src(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "kernels_rs", tmp_path / "src")
    (tmp_path / "src" / "skipped.rs").write_text(
        "#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) {}\nimpl RuntimeOp for Missing {}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _plan(c, warnings=None):
    return files.plan(["src"], "out", warnings, c)


def _sql(cache_dir, statement, *args):
    """Run one statement on the cache file directly (committed): its rows."""
    with contextlib.closing(sqlite3.connect(cache_dir / cache.DB_NAME, isolation_level=None)) as con:
        return con.execute(statement, args).fetchall()


def _stored(cache_dir):
    return _sql(cache_dir, "SELECT count(*) FROM entries")[0][0]


def test_unchanged_inputs_are_not_lowered_again(src, tmp_path, counted):
    c = cache.Cache(root=tmp_path / "cache")
    cold_warnings, warm_warnings = [], []
    cold = _plan(c, cold_warnings)
    assert len(counted) == N_INPUTS
    warm = _plan(cache.Cache(root=tmp_path / "cache"), warm_warnings)
    assert len(counted) == N_INPUTS, "a warm run lowered a file again"
    assert warm == cold
    assert warm == files.plan(["src"], "out")  # the same bytes as without any cache
    assert warm_warnings == cold_warnings and cold_warnings  # warnings are kept with the text


def test_a_changed_file_is_regenerated(src, tmp_path, counted):
    c = cache.Cache(root=tmp_path / "cache")
    before = _plan(c)
    relu = src / "src" / "relu.rs"
    relu.write_text(relu.read_text().replace("pub fn relu_forward", "pub fn relu_fwd"))
    after = _plan(c)
    assert counted.count("src/relu.rs") == 2 and len(counted) == N_INPUTS + 1
    assert "def relu_fwd(" in after[src.joinpath("out", "relu.py").relative_to(src)]
    assert {k: v for k, v in after.items() if k.name != "relu.py"} == {
        k: v for k, v in before.items() if k.name != "relu.py"}


def test_options_and_output_path_are_part_of_the_key(tmp_path):
    a, b = cache.Cache(root=tmp_path), cache.Cache({"autotune": {"num_warps": [4, 8]}}, root=tmp_path)
    assert a.fingerprint != b.fingerprint
    assert a.key(b"x", "a.rs") != b.key(b"x", "a.rs")
    assert a.key(b"x", "a.rs") != a.key(b"x", "b.rs")
    assert a.key(b"x", "a.rs") != a.key(b"y", "a.rs")


def test_a_corrupt_entry_is_a_miss(src, tmp_path, counted):
    c = cache.Cache(root=tmp_path / "cache")
    cold = _plan(c)
    _sql(tmp_path / "cache", "UPDATE entries SET warnings = '{not json'")
    assert _plan(c) == cold and len(counted) == 2 * N_INPUTS
    assert _plan(c) == cold and len(counted) == 2 * N_INPUTS  # rewritten whole by the run that missed


@pytest.mark.parametrize("update", ["text = 12345", "text = x'6465662066', used = 'today'", "used = 1.5",
                                    "text = 'import os'", "warnings = 7",
                                    "warnings = '[{\"code\": 1, \"message\": 2, \"path\": 3, \"line\": 1, \"col\": 1}]'"])
def test_a_row_of_the_wrong_type_is_a_miss(src, tmp_path, counted, update):
    """SQLite keeps any value in any column: a row whose values are not what rs2triton wrote is
    lowered again, never served as module text."""
    from rs2triton.transpiler.emit.module import HEADER_PREFIX

    assert cache.MODULE_HEADER == HEADER_PREFIX
    c = cache.Cache(root=tmp_path / "cache")
    cold = _plan(c)
    _sql(tmp_path / "cache", f"UPDATE entries SET {update}")
    assert _plan(c) == cold and len(counted) == 2 * N_INPUTS


@pytest.mark.parametrize("line_map", ['\'{"a": 1}\'', '\'{"1": "x"}\'', "42"])
def test_a_line_map_of_the_wrong_type_is_a_miss(tmp_path, counted, line_map):
    from rs2triton.transpiler.driver.pipeline import transpile_file_cached

    src = tmp_path / "relu.rs"
    shutil.copy(ROOT / "kernels_rs" / "relu.rs", src)
    c = cache.Cache(root=tmp_path / "cache")
    first = transpile_file_cached(src, c)
    _sql(tmp_path / "cache", f"UPDATE entries SET line_map = {line_map}")
    again = transpile_file_cached(src, c)
    assert len(counted) == 2 and again.text == first.text and again.line_map == first.line_map


@pytest.mark.parametrize("damage", ["garbage", "truncated", "another format"])
def test_a_damaged_cache_file_is_replaced(src, tmp_path, counted, damage):
    """A file that is not a database, a damaged one or one of another layout is a miss, and the
    next run starts a fresh one."""
    cold = _plan(cache.Cache(root=tmp_path / "cache"))
    db = tmp_path / "cache" / cache.DB_NAME
    data = db.read_bytes()
    if damage == "another format":
        for statement in ("DROP TABLE entries", "CREATE TABLE entries (key TEXT, value TEXT)",
                          f"PRAGMA user_version = {cache.FORMAT - 1}"):
            _sql(tmp_path / "cache", statement)
    else:
        db.write_bytes(b"not a database\n" * 200 if damage == "garbage" else data[:len(data) // 3])
    assert _plan(cache.Cache(root=tmp_path / "cache")) == cold and len(counted) == 2 * N_INPUTS
    assert _stored(tmp_path / "cache") == N_INPUTS
    assert _plan(cache.Cache(root=tmp_path / "cache")) == cold and len(counted) == 2 * N_INPUTS


def test_a_cache_that_cannot_be_written_still_transpiles(src, tmp_path, monkeypatch, counted):
    """No folder can be made there, or the file and folder are read-only: correct output, and hits
    still served from a read-only file."""
    expected = files.plan(["src"], "out")
    (tmp_path / "a_file").write_text("")
    assert _plan(cache.Cache(root=tmp_path / "a_file" / "cache")) == expected
    assert len(counted) == 2 * N_INPUTS

    c = cache.Cache(root=tmp_path / "cache")
    _plan(c)
    edited = src / "src" / "relu.rs"
    edited.write_text(edited.read_text().replace("pub fn relu_forward", "pub fn relu_fwd"))
    connect = sqlite3.connect  # (chmod does not stop root: open the file read-only instead)
    monkeypatch.setattr(sqlite3, "connect", lambda path, **kw: connect(f"file:{path}?mode=ro", uri=True, **kw))
    after = _plan(cache.Cache(root=tmp_path / "cache"))
    assert len(counted) == 3 * N_INPUTS + 1  # only the edited file
    assert after == files.plan(["src"], "out") and "def relu_fwd(" in after[Path("out/relu.py")]
    monkeypatch.undo()
    assert _stored(tmp_path / "cache") == N_INPUTS  # the write was skipped


def test_two_processes_filling_one_cache_at_once(src, tmp_path, counted):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RS2TRITON_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("RS2TRITON_NO_CACHE", None)
    procs = [subprocess.Popen([sys.executable, "-m", "rs2triton", "transpile", "-q", "-j", "1", "src", "-o", out],
                              cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for out in ("out1", "out2")]
    for proc in procs:
        assert proc.wait() == 0, proc.stderr.read()
        proc.stderr.close(), proc.stdout.close()
    assert _stored(tmp_path / "cache") == N_INPUTS
    expected = files.plan(["src"], "out")
    for out in ("out1", "out2"):
        assert {p: (src / out / p.relative_to("out")).read_text() for p in expected} == expected
    assert _plan(cache.Cache(root=tmp_path / "cache")) == expected  # every entry is right, and served
    assert len(counted) == N_INPUTS


def test_a_write_waits_for_another_write_and_gives_up_quietly(tmp_path, monkeypatch):
    c = cache.Cache(root=tmp_path)
    c.put("a", "A", [])
    other = sqlite3.connect(tmp_path / cache.DB_NAME, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process, in the middle of its write
    commit = threading.Timer(0.2, other.execute, ["COMMIT"])
    commit.start()
    c.put("b", "B", [])  # waits for it
    commit.join()
    assert set(c.get_many(["a", "b"])) == {"a", "b"}

    monkeypatch.setattr(cache, "BUSY_TIMEOUT_S", 0.05)
    other.execute("BEGIN IMMEDIATE")
    c = cache.Cache(root=tmp_path)
    c.put("c", "C", [])  # the lock is held too long: the write is skipped
    assert c.get("a") == ("A", [], None)  # (reading goes on meanwhile)
    other.execute("ROLLBACK")
    other.close()
    assert c.get("c") is None and c.get("b") == ("B", [], None)


def test_entries_unused_for_long_are_pruned(tmp_path, monkeypatch):
    c = cache.Cache(root=tmp_path)
    day = 20000
    monkeypatch.setattr(cache, "today", lambda: day)
    c.put_many([(k, f"text {k}", [], None) for k in ("old", "read", "line_map")])
    c.put("line_map", "text line_map", [], {3: 1})
    c.put_many([("line_map", "text line_map", [], None)])  # written again without one: the map is kept
    assert c.get("line_map") == ("text line_map", [], {3: 1})
    day += 20
    assert c.get_many(["read", "missing"]) == {"read": ("text read", [], None)}  # marks it used
    day += cache.KEEP_DAYS - 20
    c.put("new", None, [])  # the day's first write prunes: nothing is unused for more than KEEP_DAYS yet
    assert _sql(tmp_path, "SELECT count(*) FROM entries") == [(4,)]  # (read directly: get_many would mark them)
    day += 1
    c.put("newer", None, [])
    assert c.get_many(["old", "read", "line_map", "new", "newer"], line_maps=True) == {
        "read": ("text read", [], None), "new": (None, [], None), "newer": (None, [], None)}
    _sql(tmp_path, "INSERT INTO entries VALUES ('stale', 0, NULL, '[]', NULL)")
    stale = "SELECT key FROM entries WHERE key = 'stale'"
    c.put("newest", None, [])
    assert _sql(tmp_path, stale) == [("stale",)]  # (pruning runs once a day)
    day += 1
    c.put("newest", None, [])
    assert _sql(tmp_path, stale) == []


def _package_copy(tmp_path):
    pkg = tmp_path / "pkg"
    shutil.copytree(ROOT / "rs2triton", pkg / "rs2triton", ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def _transpile(pkg, workdir, cache_dir):
    """`rs2triton transpile` run from a copy of the package (as another install would be)."""
    env = {**os.environ, "PYTHONPATH": str(pkg), "RS2TRITON_CACHE_DIR": str(cache_dir)}
    env.pop("RS2TRITON_NO_CACHE", None)
    proc = subprocess.run([sys.executable, "-m", "rs2triton", "transpile", "-q", "src", "-o", "out"],
                          cwd=workdir, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return _stored(cache_dir)


def test_a_changed_template_or_version_is_regenerated(src, tmp_path):
    pkg = _package_copy(tmp_path)
    cache_dir = tmp_path / "cache"
    assert _transpile(pkg, src, cache_dir) == N_INPUTS
    relu_py = src / "out" / "relu.py"
    original = relu_py.read_text()
    assert _transpile(pkg, src, cache_dir) == N_INPUTS  # nothing changed: nothing new cached

    template = pkg / "rs2triton" / "templates" / "module.py.j2"
    template.write_text(template.read_text().replace("import triton\n", "import triton  # edited template\n", 1))
    assert _transpile(pkg, src, cache_dir) == 2 * N_INPUTS
    assert "import triton  # edited template\n" in relu_py.read_text()

    init = pkg / "rs2triton" / "version.py"
    init.write_text(init.read_text().replace('__version__ = "', '__version__ = "99.', 1))
    assert _transpile(pkg, src, cache_dir) == 3 * N_INPUTS  # a new version: every file lowered again

    template.write_text(template.read_text().replace("  # edited template", ""))
    init.write_text(init.read_text().replace('__version__ = "99.', '__version__ = "', 1))
    assert _transpile(pkg, src, cache_dir) == 3 * N_INPUTS  # back to the original: its entries are reused
    assert relu_py.read_text() == original


def test_package_digest_covers_code_and_templates(tmp_path):
    pkg = _package_copy(tmp_path) / "rs2triton"
    base = cache.package_digest.__wrapped__(pkg)
    lowering = pkg / "transpiler" / "lowering" / "lowerer.py"  # a module in a sub-package
    lowering.write_text(lowering.read_text() + "\n# edited\n")
    edited_code = cache.package_digest.__wrapped__(pkg)
    (pkg / "templates" / "module.py.j2").write_text("x")
    assert len({base, edited_code, cache.package_digest.__wrapped__(pkg)}) == 3


def test_no_cache_switch(src, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(tmp_path / "cache"))
    res = CliRunner().invoke(main, ["transpile", "--no-cache", "src", "-o", "out"])
    assert res.exit_code == 0, res.output
    assert not (tmp_path / "cache").exists()
    monkeypatch.setenv("RS2TRITON_NO_CACHE", "1")
    assert CliRunner().invoke(main, ["check", "src", "-o", "out"]).exit_code == 0
    assert not (tmp_path / "cache").exists()
    monkeypatch.delenv("RS2TRITON_NO_CACHE")
    assert CliRunner().invoke(main, ["check", "src", "-o", "out"]).exit_code == 0
    assert _stored(tmp_path / "cache") == N_INPUTS


def test_files_lowered_in_several_processes_give_the_same_result(tmp_path, monkeypatch):
    """--jobs: the work is split between processes; outputs, warnings and errors are unchanged."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from gen_corpus import generate

    generate(tmp_path / "src", files=24, seed=1)
    shutil.copy(ROOT / "tests" / "kernels" / "semantics.rs", tmp_path / "src" / "semantics.rs")
    (tmp_path / "src" / "warn.rs").write_text(
        "#[kernel]\npub fn t<T: Triton>(x: T::Pointer<f32>) {}\nimpl RuntimeOp for Missing {}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RS2TRITON_NO_CACHE": "1"}

    def run(jobs, out):
        return subprocess.run([sys.executable, "-m", "rs2triton", "transpile", "-j", str(jobs), "src", "-o", out],
                              cwd=tmp_path, env=env, capture_output=True, text=True)

    one, three = run(1, "out1"), run(3, "out3")
    assert one.returncode == three.returncode == 0, one.stderr + three.stderr
    assert one.stderr == three.stderr and "W0010" in one.stderr
    files1 = {p.relative_to(tmp_path / "out1"): p.read_bytes() for p in (tmp_path / "out1").rglob("*.py")}
    files3 = {p.relative_to(tmp_path / "out3"): p.read_bytes() for p in (tmp_path / "out3").rglob("*.py")}
    assert files1 == files3 and len(files1) > 20

    # Errors in files lowered by different processes are all reported, in input order.
    for name in ("a_bad.rs", "z_bad.rs"):
        (tmp_path / "src" / name).write_text("#[kernel]\npub fn k<T: Triton>(n: i32) { let v = match n { _ => 1 }; }\n")
    bad1, bad3 = run(1, "bad1"), run(3, "bad3")
    assert bad1.returncode == bad3.returncode == 1
    assert bad1.stderr == bad3.stderr and "src/a_bad.rs" in bad3.stderr and "src/z_bad.rs" in bad3.stderr
    assert bad3.stderr.index("src/a_bad.rs") < bad3.stderr.index("src/z_bad.rs")
    assert not (tmp_path / "bad3").exists()


def test_load_serves_an_unchanged_source_from_the_cache(tmp_path, monkeypatch, counted):
    """rs2triton.load: text and line map from the cache; kernels re-read; a changed source regenerated."""
    from rs2triton.transpiler.driver.pipeline import transpile_file_cached

    src = tmp_path / "relu.rs"
    shutil.copy(ROOT / "kernels_rs" / "relu.rs", src)
    c = cache.Cache(root=tmp_path / "cache")
    first = transpile_file_cached(src, c)
    again = transpile_file_cached(src, c)
    assert len(counted) == 1, "an unchanged source was lowered again"
    assert again.text == first.text and again.line_map == first.line_map and first.line_map
    assert [k.name for k in again.kernels] == [k.name for k in first.kernels] == ["relu_forward", "relu_backward"]
    assert again.kernels[0].params == first.kernels[0].params

    # An entry written by `transpile` has its line map too: load serves it as it is.
    plan_c = cache.Cache(root=tmp_path / "cache2")
    monkeypatch.chdir(tmp_path)  # (spelled as `transpile relu.rs -o out` would spell it)
    files.plan(["relu.rs"], "out", cache=plan_c)
    src = Path("relu.rs")
    assert transpile_file_cached(src, plan_c).line_map == first.line_map and len(counted) == 2

    src.write_text(src.read_text().replace("pub fn relu_forward", "pub fn relu_fwd"))
    changed = transpile_file_cached(src, c)
    assert len(counted) == 3 and "def relu_fwd(" in changed.text


def test_tuning_tables_and_plain_are_part_of_the_key(tmp_path, monkeypatch, counted):
    (tmp_path / "k").mkdir()
    shutil.copy(ROOT / "kernels_rs" / "vector_add.rs", tmp_path / "k" / "vector_add.rs")
    table = tmp_path / "pyproject.toml"
    table.write_text("[tool.rs2triton.tune.vector_add]\nconfigs = [{ BLOCK_SIZE = 64 }]\n")
    monkeypatch.chdir(tmp_path)
    store = cache.Cache(root=tmp_path / "cache")
    first = files.plan(["k"], "out", cache=store)
    assert files.plan(["k"], "out", cache=store) == first and len(counted) == 1
    table.write_text("[tool.rs2triton.tune.vector_add]\nconfigs = [{ BLOCK_SIZE = 128 }]\n")
    second = files.plan(["k"], "out", cache=store)
    assert len(counted) == 2 and '{"BLOCK_SIZE": 128}' in second[Path("out/vector_add.py")]
    plain = files.plan(["k"], "out", cache=store, launchers=False)
    assert len(counted) == 3 and "Launcher" not in plain[Path("out/vector_add.py")]


def test_worker_processes_lower_what_this_process_would(tmp_path):
    """Files lowered by worker processes give the same outcomes, in input order, as lowered here;
    a worker's exception reaches the caller with its traceback, and a worker that dies is reported."""
    script = f"""
import os, sys
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / "benchmarks")!r})
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from gen_corpus import generate
from rs2triton.transpiler.driver import pipeline, workers
generate(Path({str(tmp_path)!r}) / "src", files=26, seed=2)
sources = [(p.read_bytes(), p.name, {{}}) for p in sorted((Path({str(tmp_path)!r}) / "src").rglob("*.rs"))]
sources.append((b"#[kernel]\\npub fn k<T: Triton>(n: i32) {{ loop {{}} }}\\n", "bad.rs", {{}}))
one = workers.transpile_many(sources, jobs=1)
three = workers.transpile_many(sources, jobs=3)
assert [getattr(r, "text", None) for r in one] == [getattr(r, "text", None) for r in three]
assert [r.line_map for r in one[:-1]] == [r.line_map for r in three[:-1]]
assert [d.message for d in one[-1].diagnostics] == [d.message for d in three[-1].diagnostics]
assert sum(getattr(r, "text", None) is not None for r in one) >= 20
real, here = pipeline.lower_source, os.getpid()
by = Path({str(tmp_path)!r}) / "by"
def noted(*args, **kwargs):  # which process lowered each file
    with open(by, "a") as f:
        f.write(str(os.getpid()) + " ")
    return real(*args, **kwargs)
pipeline.lower_source = noted
assert [getattr(r, "text", None) for r in workers.transpile_many(sources, jobs=2)] == [getattr(r, "text", None) for r in one]
pids = by.read_text().split()
assert len(pids) == len(sources) and str(here) in pids and len(set(pids)) == 2, pids  # this process lowers files too
def planted(*args, **kwargs):  # (in a worker: this process lowers files too)
    if os.getpid() != here:
        raise MemoryError("planted")
    return real(*args, **kwargs)
pipeline.lower_source = planted
try:
    workers.transpile_many(sources, jobs=2)
except MemoryError as e:
    assert "planted" in str(e) and "lower_one" in str(e.__cause__), e.__cause__
else:
    raise AssertionError("a worker's exception went unnoticed")
pipeline.lower_source = lambda *args, **kwargs: os._exit(3) if os.getpid() != here else real(*args, **kwargs)
try:
    workers.transpile_many(sources, jobs=2)
except BrokenProcessPool:
    pass
else:
    raise AssertionError("a dead worker went unnoticed")
print("ok", len(sources))
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.startswith("ok"), res.stdout + res.stderr


def test_load_stages_loads_all_that_lowering_needs():
    """Workers are forked once the stages are loaded (workers.py): lowering a file after
    load_stages imports nothing more of rs2triton, the parser or the template engine."""
    script = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from rs2triton.transpiler.driver import pipeline
pipeline.load_stages()
before = set(sys.modules)
for name in ("relu.rs", "layernorm.rs", "matmul.rs"):
    pipeline.finish([pipeline.lower_source(open({str(ROOT / "kernels_rs")!r} + "/" + name, "rb").read(), name)])
new = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in ("rs2triton", "jinja2", "tree_sitter", "markupsafe"))
assert not new, new
print("ok")
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.startswith("ok"), res.stdout + res.stderr


def test_a_caller_with_threads_gets_workers_from_the_forkserver(tmp_path):
    script = f"""
import sys, threading
sys.path.insert(0, {str(ROOT)!r})
from rs2triton.transpiler.driver import workers
assert workers.context().get_start_method() == "fork"
stop = threading.Event()
t = threading.Thread(target=stop.wait); t.start()
try:
    assert workers.context().get_start_method() == "forkserver"
    sources = [(open({str(ROOT / "kernels_rs" / "relu.rs")!r}, "rb").read(), f"r{{i}}.rs", {{}}) for i in range(8)]
    assert all(r.text for r in workers.transpile_many(sources, jobs=2))
finally:
    stop.set(); t.join()
print("ok")
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.startswith("ok"), res.stdout + res.stderr


@pytest.mark.parametrize("args", [["check", "src", "-o", "out"], ["transpile", "--help"], ["check", "nowhere"]])
def test_workers_never_hold_the_callers_pipes(tmp_path, args):
    """Runs with no work for the workers (all cached, --help, an error first) end at once,
    and whoever reads their output sees it end with them."""
    shutil.copytree(ROOT / "kernels_rs", tmp_path / "src")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RS2TRITON_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-m", "rs2triton", "transpile", "-q", "src", "-o", "out"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    proc = subprocess.Popen([sys.executable, "-m", "rs2triton", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=60)  # (a worker holding stdout or stderr would block this)
    assert proc.returncode == (2 if "nowhere" in args else 0), out + err  # (2: a usage error)


def test_the_options_of_a_key_are_canonical_json():
    import json

    for launchers in (True, False):
        assert pipeline.options_key(launchers, None) == json.dumps({"features": None, "launchers": launchers,
                                                                    "tune": {}}, sort_keys=True)
    assert pipeline.options_key(True, None, frozenset({"b", "a"})) == \
        json.dumps({"features": ["a", "b"], "launchers": True, "tune": {}}, sort_keys=True)  # features sorted

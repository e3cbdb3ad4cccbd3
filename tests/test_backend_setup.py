"""Setting the backend up: a tree's files read with bounded checks and loaded when a graph needs
them, bad files skipped with a warning naming them, `torch.compile`'s `mode=`/`options=`, the
`torch_dynamo_backends` entry point, and a missing setup named."""

import os
import shutil

import pytest
import tomllib
import torch

import rs2triton
from rs2triton.backend.tree import TreeWarning
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


def _messages(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, TreeWarning)]


def test_bad_files_in_a_tree_are_skipped_with_a_warning_naming_each(tmp_path):
    """A FIFO, a symlink to /dev/zero, an 8 GiB sparse file, a dangling symlink (and, where the
    process cannot read everything, an unreadable file) never hang or kill the set-up: each is
    skipped, named, with the reason; a file that does not transpile is named with its error
    when it is loaded; the good file's op runs."""
    shutil.copy(ROOT / "kernels_rs" / "relu.rs", tmp_path / "relu.rs")
    os.mkfifo(tmp_path / "fifo.rs")
    os.symlink("/dev/zero", tmp_path / "zero.rs")
    with open(tmp_path / "huge.rs", "wb") as f:
        f.truncate(8 << 30)
    os.symlink(tmp_path / "missing.rs", tmp_path / "dangling.rs")
    (tmp_path / "broken.rs").write_text("#[kernel]\npub fn broken(x: i32 { }\nimpl RuntimeOp for Broken {}\n")
    with pytest.warns(TreeWarning) as record:
        backend = rs2triton.torch_backend(tmp_path, name="rs2triton_setup_bad", register=False)
    text = "\n".join(_messages(record))
    assert f"skipped {tmp_path / 'fifo.rs'}" in text and "it is a FIFO" in text
    assert f"skipped {tmp_path / 'zero.rs'}" in text and "it is a device" in text
    assert f"skipped {tmp_path / 'huge.rs'}" in text and "8589934592 bytes is more than a kernel file holds" in text
    assert f"skipped {tmp_path / 'dangling.rs'}" in text and "No such file" in text
    assert "broken.rs" not in text  # (not loaded yet: nothing asked for its op)
    with pytest.warns(TreeWarning, match=r"skipped .*broken\.rs: "):
        assert "Broken" not in backend.tree.ops
    assert "ReluForward" in backend.tree.ops
    x = torch.randn(9).to(DEVICE)
    with torch.no_grad():
        assert_matches("relu", backend.functional.relu(x), torch.relu(x))
    assert backend.report().ran("relu") == 1


def test_a_tree_with_no_ops_is_a_warning(tmp_path):
    (tmp_path / "lib.rs").write_text("pub fn helper() -> i32 { 1 }\n")
    with pytest.warns(TreeWarning, match=r"has no ops .* every node will run on torch"):
        rs2triton.torch_backend(tmp_path, name="rs2triton_setup_empty", register=False)


def test_files_load_when_a_graph_needs_them_and_paths_are_resolved(monkeypatch):
    """Nothing is transpiled at set-up; a graph with a ReLU loads relu.rs (and any file whose ops
    a macro makes, when a name is in no other file), not the others. A relative path and an
    absolute one are one file."""
    monkeypatch.chdir(ROOT)
    backend = rs2triton.torch_backend("kernels_rs", name="rs2triton_setup_lazy", register=False)
    assert backend.tree.files == {}
    torch._dynamo.reset()
    x = torch.randn(6).to(DEVICE)
    with torch.no_grad():
        assert_matches("relu", torch.compile(torch.relu, backend=backend)(x), torch.relu(x))
    assert backend.tree.files["ReluForward"] == (ROOT / "kernels_rs" / "relu.rs").resolve()
    assert (ROOT / "kernels_rs" / "conv2d.rs").resolve() not in set(backend.tree.files.values())
    absolute = rs2triton.torch_backend(ROOT / "kernels_rs" / "relu.rs", name="rs2triton_setup_abs", register=False)
    assert absolute.tree.files == {} and "ReluForward" in absolute.tree.ops
    assert absolute.tree.files["ReluForward"] == backend.tree.files["ReluForward"]


def test_mode_and_options_are_accepted():
    rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_setup_mode")
    torch._dynamo.reset()
    x = torch.randn(5).to(DEVICE)
    for kwargs in ({"mode": "max-autotune-no-cudagraphs"}, {"options": {"anything": 1}}, {"mode": "reduce-overhead"}):
        with torch.no_grad():
            got = torch.compile(lambda t: torch.relu(t) + 1, backend="rs2triton_setup_mode", **kwargs)(x)
        assert_matches(str(kwargs), got, torch.relu(x) + 1)
        torch._dynamo.reset()


def test_the_entry_point_names_the_missing_setup():
    """`pyproject.toml` registers the name `teenygrad` for torch.compile (group
    `torch_dynamo_backends`); without `rs2triton.torch_backend(...)` first, it says so."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    target = project["entry-points"]["torch_dynamo_backends"]["teenygrad"]
    module, _, name = target.partition(":")
    import importlib

    entry = getattr(importlib.import_module(module), name)
    from rs2triton.backend import compiler

    saved = compiler._CURRENT.pop("teenygrad", None)
    try:
        with pytest.raises(RuntimeError, match=r"call rs2triton.torch_backend\(kernels=\.\.\.\) first"):
            entry(torch.fx.symbolic_trace(torch.nn.ReLU()), [torch.randn(3)])
    finally:
        if saved is not None:
            compiler._CURRENT["teenygrad"] = saved

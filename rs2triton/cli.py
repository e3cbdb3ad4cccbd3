"""rs2triton's command line: ``transpile``, ``check``, ``show``, ``run``, ``tune``, ``kernels`` and ``ops``.

Exit codes: 0 success; 1 a user error (diagnostics printed, nothing written) or,
for ``check``, stale output; 2 a usage error.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from rs2triton.diagnostics import ICE_CODE, Diagnostic, TranspileError, terminal_text
from rs2triton.diagnostics import shown_path as shown
from rs2triton.version import __version__

if TYPE_CHECKING:
    from pathlib import Path

F = TypeVar("F", bound=Callable[..., Any])  # a command's function, which a decorator adds options to


def _say(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """``click.echo`` of a message: nothing in it (a path, a name, a file's text) can act on the
    terminal; control characters are written out as Rust writes them (``\\u{1b}``)."""
    click.echo(terminal_text(message, keep_newlines=True), err=err, nl=nl)


def _fail(err: TranspileError, outcome: str = "nothing was written") -> NoReturn:
    for d in err.diagnostics:
        _say(d.render() + "\n", err=True)
    n = len(err.diagnostics)
    _say(f"error: aborting due to {n} error{'s' if n != 1 else ''}; {outcome}", err=True)
    sys.exit(1)


def _plan(srcs: tuple[str, ...], outdir: str, use_cache: bool, jobs: int, line_comments: bool = False,
          plain: bool = False, features: tuple[str, ...] = (), default_features: bool = True,
          debug: bool = False) -> dict[Path, str]:
    """Every output file's text, warnings printed; exits 1 on any user error."""
    from rs2triton.transpiler.driver import cache
    from rs2triton.transpiler.driver.files import plan
    from rs2triton.transpiler.driver.workers import default_jobs

    warnings: list[Diagnostic] = []
    try:
        debug = debug or _profile()
        files = plan(list(srcs), outdir, warnings, cache.default() if use_cache else None,
                     jobs or default_jobs(), line_comments, launchers=not plain, features=features,
                     default_features=default_features, debug=debug)
    except TranspileError as e:
        _fail(e)
    for w in warnings:
        _say(w.render() + "\n", err=True)
    return files


PLAIN_HELP = "Plain Triton: no launchers, no rs2triton import (for vendoring the generated code)."


def _split_features(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f for v in values for f in v.replace(",", " ").split())


def _feature_options(f: F) -> F:
    """--features and --no-default-features, as cargo takes them: what `#[cfg(feature = ...)]` sees."""
    f = click.option("--no-default-features", "no_default_features", is_flag=True,
                     help="Leave out the crate's default features (its Cargo.toml's [features] default).")(f)
    return click.option("--features", "features", multiple=True, callback=_split_features, metavar="A,B",
                        help="Crate features to enable for #[cfg(feature = ...)], besides the default ones.")(f)


def _profile() -> bool:
    """Whether ``RS2TRITON_PROFILE=debug`` asks for Rust's debug-build checks (a bad value is a usage error)."""
    from rs2triton.transpiler.driver.pipeline import debug_build

    try:
        return debug_build(None, "rs2triton")
    except ValueError as e:
        raise click.UsageError(str(e)) from None


DEBUG_HELP = ("Rust's debug build: kernels check integer overflow, shift amounts and division "
              "(tl.device_assert with the Rust file:line). Also RS2TRITON_PROFILE=debug.")


def _planning_options(f: F) -> F:
    """--no-cache, --jobs, --plain, --debug and the features, shared by transpile and check."""
    f = _feature_options(f)
    f = click.option("--debug", is_flag=True, help=DEBUG_HELP)(f)
    f = click.option("--plain", is_flag=True, help=PLAIN_HELP)(f)
    f = click.option("-j", "--jobs", type=click.IntRange(min=0), default=0,
                     help="Processes that lower files (default 0: one per core, at most 8).")(f)
    return click.option("--no-cache", is_flag=True,
                        help="Lower every file again (ignore and do not fill the transpile cache).")(f)


class _Main(click.Group):
    """The command group, with a last safety net: no command ends in a Python traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as e:  # noqa: BLE001 - a bug in rs2triton; diagnostics were handled above
            if os.environ.get("RS2TRITON_DEBUG") == "1":
                raise
            # An exception in a worker process comes with the worker's traceback as its cause.
            frames = [line.strip() for line in str(e.__cause__ or "").splitlines() if line.strip().startswith("File ")]
            origin = f" = note: raised in a worker process, {frames[-1]}\n" if frames else ""
            _say(f"error[{ICE_CODE}]: internal error in rs2triton: {type(e).__name__}: {e}\n{origin}"
                       " = note: this is a bug in rs2triton; please report it with the command and its input\n"
                       " = note: run with RS2TRITON_DEBUG=1 to see the Python traceback", err=True)
            sys.exit(1)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rs2triton")
def main() -> None:
    """Transpile teeny-triton Rust DSL kernels to Python Triton."""


@main.command()
@click.argument("srcs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--outdir", required=True, type=click.Path(file_okay=False),
              help="Folder for the generated modules (OUTDIR/<stem>.py).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
@click.option("--line-comments", is_flag=True,
              help="End each generated statement with `# file.rs:LINE`, the Rust line it came from.")
@_planning_options
def transpile(srcs: tuple[str, ...], outdir: str, quiet: bool, line_comments: bool, no_cache: bool,
              jobs: int, plain: bool, features: tuple[str, ...], no_default_features: bool, debug: bool) -> None:
    """Write one Python Triton module per .rs file that holds kernels.

    A folder given as SRC keeps its sub-folders and gets __init__.py files.
    """
    from rs2triton.transpiler.driver.files import LEFTOVER, leftovers, orphans, write

    files = _plan(srcs, outdir, not no_cache, jobs, line_comments, plain, features, not no_default_features, debug)
    try:
        changed = write(files)
    except TranspileError as e:
        _fail(e)
    for stray in sorted({s for folder in {p.parent for p in files} for s in leftovers(folder)}):
        _say(f"warning: {stray.as_posix()}: {LEFTOVER}", err=True)
    for stale in orphans(files, outdir):
        _say(f"warning: {shown(stale)} was generated by rs2triton but no input produces it now; "
                   "delete it if its source is gone", err=True)
    if not quiet:
        modules = [p for p in files if p.name != "__init__.py"]
        _say(f"transpiled {len(modules)} module{'s' if len(modules) != 1 else ''} into {shown(outdir)} "
                   f"({len(changed)} changed)")


@main.command()
@click.argument("srcs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--outdir", required=True, type=click.Path(file_okay=False),
              help="Folder the generated modules were written to.")
@_planning_options
def check(srcs: tuple[str, ...], outdir: str, no_cache: bool, jobs: int, plain: bool, features: tuple[str, ...],
          no_default_features: bool, debug: bool) -> None:
    """Exit 1 with a unified diff if OUTDIR is stale; writes nothing to OUTDIR."""
    from rs2triton.transpiler.driver.files import check as check_files

    files = _plan(srcs, outdir, not no_cache, jobs, plain=plain, features=features,
                  default_features=not no_default_features, debug=debug)
    diffs = check_files(files, outdir)
    if diffs and not no_cache:  # stale on the cache's word: confirmed by transpiling again, uncached
        files = _plan(srcs, outdir, False, jobs, plain=plain, features=features,
                      default_features=not no_default_features, debug=debug)
        diffs = check_files(files, outdir)
    if diffs:
        _say("".join(diffs), nl=False)
        flags = [*(["--plain"] if plain else []), *(["--debug"] if debug else []),
                 *(["--no-default-features"] if no_default_features else []),
                 *([f"--features {','.join(features)}"] if features else [])]
        _say(f"{len(diffs)} generated file{'s are' if len(diffs) != 1 else ' is'} stale; "
             f"run: rs2triton transpile {' '.join([*map(shown, srcs), *flags])} -o {shown(outdir)}", err=True)
        sys.exit(1)
    _say(f"{len(files)} generated file{'' if len(files) == 1 else 's'} up to date", err=True)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.argument("kernel", required=False)
@click.option("--plain", is_flag=True, help=PLAIN_HELP)
@click.option("--ir", "stage", default=None, metavar="STAGE",
              help="Instead: compile KERNEL (no GPU needed) and print this stage, the Rust interleaved: "
                   "ttir, ttgir, llir, ptx or amdgcn.")
@click.option("--target", default="cuda:90", show_default=True, help="With --ir: cuda:90, cuda:80, hip:gfx942, hip:gfx90a.")
@click.option("--dtype", "dtypes", multiple=True, metavar="D=TYPE",
              help="With --ir: a dtype parameter's type, e.g. D=f16 (each defaults to f32). Repeatable.")
@click.option("-c", "--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="With --ir: a const generic's value, e.g. BLOCK_SIZE=128. Repeatable.")
@click.option("--debug", is_flag=True, help=DEBUG_HELP)
@_feature_options
def show(file: str, kernel: str | None, plain: bool, stage: str | None, target: str, dtypes: tuple[str, ...],
         consts: tuple[str, ...], features: tuple[str, ...], no_default_features: bool, debug: bool) -> None:
    """Print the Python Triton module generated for FILE (writes nothing); with --ir, a stage of
    KERNEL compiled, beside the Rust it came from."""
    from rs2triton.transpiler.driver.pipeline import transpile_file

    if stage is not None:
        _show_ir(file, kernel, stage, target, dtypes, consts)
        return
    if kernel is not None:
        _say(f"error: a KERNEL ({kernel}) is shown with --ir STAGE; without it, the module is", err=True)
        sys.exit(1)
    try:
        res = transpile_file(file, launchers=not plain, features=features, default_features=not no_default_features,
                             debug=debug or _profile())
    except TranspileError as e:
        _fail(e)
    for w in res.warnings:
        _say(w.render() + "\n", err=True)
    if res.text is None:
        _say(f"{shown(file)} has no #[kernel] functions", err=True)
        sys.exit(1)
    click.echo(res.text, nl=False)


def _show_ir(file: str, kernel: str | None, stage: str, target: str, dtypes: tuple[str, ...],
             consts: tuple[str, ...]) -> None:
    from rs2triton.loading.loader import BackendError, MissingExtraError
    from rs2triton.runtime.locations import TraceError
    from rs2triton.tools.ir import beside_rust, compile_stage
    from rs2triton.tools.run import RunError, parse_kv

    warnings.filterwarnings("ignore", "TRITON_DEFAULT_FP_FUSION")  # (Triton 3.9's note on a default to come)
    try:
        text, rust, _ = compile_stage(file, kernel, stage, target, parse_kv(dtypes, "--dtype"),
                                      parse_kv(consts, "--const"))
    except TranspileError as e:
        _fail(e, "nothing was compiled")
    except (RunError, BackendError, MissingExtraError, TraceError) as e:
        _say(f"error: {e}", err=True)
        sys.exit(1)
    click.echo(beside_rust(stage, text, rust), nl=False)


def _host_line(host: dict[str, Any]) -> str:
    """An op's host logic in one line: where its impl is, its inputs, parameters and grid (Rust)."""
    parts = [f"impl RuntimeOp at line {host['line']}"]
    if "new" in host:
        parts.append(f"built by {host['new']}")
    for key, label in (("n_activation_inputs", "inputs"), ("param_names", "params"), ("param_shapes", "param shapes"),
                       ("n_launches", "launches"), ("grid", "grid")):
        if key in host and not (key == "param_shapes" and "param_names" in host):
            parts.append(f"{label} {host[key]}")
    if host.get("has_backward") == "true":
        parts.append("has a backward")
    return "; ".join(parts)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.argument("kernel")
@click.option("--grid", "grid", required=True, help="Launch grid: 8, or 4,2, or 4,2,1.")
@click.option("-c", "--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="A const generic value, e.g. BLOCK_SIZE=128. Repeatable.")
@click.option("-a", "--arg", "args", multiple=True, metavar="NAME=VALUE",
              help="A kernel argument: pointers take a tensor size (1000, 64x32), scalars a value.")
@click.option("--dtype", default=None, help="Element type for the kernel's dtype parameter (f32, f16, i32, ...).")
@click.option("--expect", "expects", multiple=True, metavar="OUT=EXPR",
              help="Check an output against a torch expression of the inputs, e.g. out_ptr='a_ptr + b_ptr'.")
@click.option("--seed", default=0, show_default=True, help="Seed for the generated inputs.")
@click.option("--interpret", is_flag=True, default=None, help="Use Triton's CPU interpreter even with a GPU.")
@click.option("--debug", is_flag=True, help=DEBUG_HELP)
def run(file: str, kernel: str, grid: str, consts: tuple[str, ...], args: tuple[str, ...], dtype: str | None,
        expects: tuple[str, ...], seed: int, interpret: bool | None, debug: bool) -> None:
    """Launch KERNEL from FILE on generated inputs and summarise its outputs.

    Runs on CUDA or ROCm when torch sees a GPU, else on Triton's CPU interpreter.
    """
    from rs2triton.loading.loader import BackendError, MissingExtraError
    from rs2triton.runtime.locations import TraceError
    from rs2triton.tools.run import (
        RunError,
        check_expectations,
        check_expressions,
        parse_grid,
        parse_kv,
        summarize,
    )
    from rs2triton.tools.run import run as run_kernel

    try:
        check_expressions(parse_kv(expects, "--expect"), set(parse_kv(args, "--arg")))  # before anything runs
        report = run_kernel(file, kernel, parse_grid(grid), parse_kv(consts, "--const"),
                            parse_kv(args, "--arg"), dtype, seed, interpret, debug)
        _say(summarize(report))
        failures = check_expectations(report, parse_kv(expects, "--expect"))
    except TranspileError as e:
        _fail(e, "the kernel did not run")
    except (RunError, BackendError, MissingExtraError, TraceError) as e:
        _say(f"error: {e}", err=True)
        sys.exit(1)
    for f in failures:
        _say(f"MISMATCH {f}", err=True)
    if failures:
        sys.exit(1)
    for name, expression in parse_kv(expects, "--expect").items():
        _say(f"  {name} matches torch: {expression}")


@main.command()
@click.argument("srcs", nargs=-1, required=True, type=click.Path(exists=True))
def kernels(srcs: tuple[str, ...]) -> None:
    """List the kernels of SRCS with their launchers: const generics, parameters, dtypes, backward."""
    from rs2triton.transpiler.driver.files import discover_sources
    from rs2triton.transpiler.driver.pipeline import transpile_file
    from rs2triton.transpiler.emit.launchers import describe
    from rs2triton.transpiler.pyast import launcher_name

    errors: list[Diagnostic] = []
    for src, _ in discover_sources(list(srcs)):
        try:
            res = transpile_file(src)
        except TranspileError as e:
            errors.extend(e.diagnostics)
            continue
        for k in res.kernels:
            _say(f"{shown(src)}: {describe(k)}")
            host = res.host.get(launcher_name(k.name))
            _say(f"    host: {_host_line(host)}" if host else "    host: none (no impl RuntimeOp in the file)")
        for name, host in res.host.items():
            if host.get("wrapper"):
                _say(f"{shown(src)}: {name} (an op holding kernels): {_host_line(host)}")
    if errors:
        _fail(TranspileError(errors), "some files were not listed")


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.argument("kernel")
@click.option("--grid", "grid", required=True,
              help="Launch grid, evaluated per config: 8, 4,2 or 'cdiv(n_elements, BLOCK_SIZE)'.")
@click.option("-s", "--sweep", "sweeps", multiple=True, required=True, metavar="NAME=V1,V2,...",
              help="Values to try for a const generic or num_warps/num_stages. Repeatable: every combination runs.")
@click.option("-c", "--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="A const generic that is not swept. Repeatable.")
@click.option("-a", "--arg", "args", multiple=True, metavar="NAME=VALUE",
              help="A kernel argument: pointers take a tensor size (1000, 64x32), scalars a value.")
@click.option("--dtype", default=None, help="Element type for the kernel's dtype parameter (f32, f16, i32, ...).")
@click.option("--seed", default=0, show_default=True, help="Seed for the generated inputs.")
@click.option("--interpret", is_flag=True, default=None, help="Use Triton's CPU interpreter even with a GPU.")
def tune(file: str, kernel: str, grid: str, sweeps: tuple[str, ...], consts: tuple[str, ...], args: tuple[str, ...],
         dtype: str | None, seed: int, interpret: bool | None) -> None:
    """Run KERNEL from FILE for every combination of the --sweep values.

    Every config must give the same outputs as the first; on a GPU each is timed
    and the best is named. A config that fails to compile is reported, not fatal.
    Exit 1 when configs disagree or none ran.
    """
    from rs2triton.loading.loader import BackendError, MissingExtraError
    from rs2triton.runtime.locations import TraceError
    from rs2triton.tools.run import RunError, parse_kv
    from rs2triton.tools.tune import parse_sweep, summarize
    from rs2triton.tools.tune import tune as tune_kernel

    try:
        fixed = parse_kv(consts, "--const")
        report = tune_kernel(file, kernel, grid, fixed, parse_kv(args, "--arg"), parse_sweep(sweeps, fixed),
                             dtype, seed, interpret)
    except TranspileError as e:
        _fail(e, "nothing was tuned")
    except (RunError, BackendError, MissingExtraError, TraceError) as e:
        _say(f"error: {e}", err=True)
        sys.exit(1)
    _say(summarize(report))
    if report.mismatches or not any(r.ok for r in report.results):
        sys.exit(1)


@main.command()
@click.option("--markdown", is_flag=True, help="Print the generated docs/ops.md.")
def ops(markdown: bool) -> None:
    """List the DSL methods and their Triton translations."""
    from rs2triton.transpiler.dsl.docs import ops_markdown, ops_table

    click.echo(ops_markdown() if markdown else ops_table(), nl=False)

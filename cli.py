"""rs2triton's command line: ``transpile``, ``check``, ``run`` and ``ops``.

Exit codes: 0 success; 1 a user error (diagnostics printed, nothing written) or,
for ``check``, stale output; 2 a usage error.
"""

from __future__ import annotations

import sys

import click

from transpiler import __version__
from transpiler.diagnostics import TranspileError


def _fail(err: TranspileError) -> None:
    for d in err.diagnostics:
        click.echo(d.render() + "\n", err=True)
    n = len(err.diagnostics)
    click.echo(f"error: aborting due to {n} error{'s' if n != 1 else ''}; nothing was written", err=True)
    sys.exit(1)


def _plan(srcs: tuple[str, ...], outdir: str) -> dict:
    """Every output file's text, warnings printed; exits 1 on any user error."""
    from transpiler.pipeline import plan

    warnings: list = []
    try:
        files = plan(list(srcs), outdir, warnings)
    except TranspileError as e:
        _fail(e)
    for w in warnings:
        click.echo(w.render() + "\n", err=True)
    return files


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rs2triton")
def main() -> None:
    """Transpile teeny-triton Rust DSL kernels to Python Triton."""


@main.command()
@click.argument("srcs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--outdir", required=True, type=click.Path(file_okay=False),
              help="Folder for the generated modules (OUTDIR/<stem>.py).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def transpile(srcs: tuple[str, ...], outdir: str, quiet: bool) -> None:
    """Write one Python Triton module per .rs file that holds kernels.

    A folder given as SRC keeps its sub-folders and gets __init__.py files.
    """
    from transpiler.pipeline import write

    files = _plan(srcs, outdir)
    changed = write(files)
    if not quiet:
        modules = [p for p in files if p.name != "__init__.py"]
        click.echo(f"transpiled {len(modules)} module{'s' if len(modules) != 1 else ''} into {outdir} "
                   f"({len(changed)} changed)")


@main.command()
@click.argument("srcs", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-o", "--outdir", required=True, type=click.Path(file_okay=False),
              help="Folder the generated modules were written to.")
def check(srcs: tuple[str, ...], outdir: str) -> None:
    """Exit 1 with a unified diff if OUTDIR is stale; writes nothing."""
    from transpiler.pipeline import check as check_files

    files = _plan(srcs, outdir)
    diffs = check_files(files)
    if diffs:
        click.echo("".join(diffs), nl=False)
        click.echo(f"{len(diffs)} generated file{'s are' if len(diffs) != 1 else ' is'} stale; "
                   f"run: rs2triton transpile {' '.join(srcs)} -o {outdir}", err=True)
        sys.exit(1)
    click.echo(f"{len(files)} generated files up to date", err=True)


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
def run(file, kernel, grid, consts, args, dtype, expects, seed, interpret) -> None:
    """Launch KERNEL from FILE on generated inputs and summarise its outputs.

    Runs on CUDA or ROCm when torch sees a GPU, else on Triton's CPU interpreter.
    """
    from transpiler.loader import BackendError
    from transpiler.runner import RunError, check_expectations, parse_grid, parse_kv, summarize
    from transpiler.runner import run as run_kernel

    try:
        report = run_kernel(file, kernel, parse_grid(grid), parse_kv(consts, "--const"),
                            parse_kv(args, "--arg"), dtype, seed, interpret)
        click.echo(summarize(report))
        failures = check_expectations(report, parse_kv(expects, "--expect"))
    except TranspileError as e:
        _fail(e)
    except (RunError, BackendError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    for f in failures:
        click.echo(f"MISMATCH {f}", err=True)
    if failures:
        sys.exit(1)
    for name, expression in parse_kv(expects, "--expect").items():
        click.echo(f"  {name} matches torch: {expression}")


@main.command()
@click.option("--markdown", is_flag=True, help="Print the generated docs/ops.md.")
def ops(markdown: bool) -> None:
    """List the DSL methods and their Triton translations."""
    from transpiler.docs import ops_markdown, ops_table

    click.echo(ops_markdown() if markdown else ops_table(), nl=False)


if __name__ == "__main__":
    main()

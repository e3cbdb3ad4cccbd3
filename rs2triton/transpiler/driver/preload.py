"""What a worker process starts with: imported once by the forkserver (see :mod:`.workers`),
before it forks the workers, so each inherits the lowering stages, the parser and the
compiled module template instead of loading them itself."""

from rs2triton.transpiler.driver.pipeline import load_stages

load_stages()

"""The version of rs2triton (one place: the package, the wheel and the cache keys read it)."""

__version__ = "0.1.0"

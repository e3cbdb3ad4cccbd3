"""Host-side translation: teenygrad's ``impl RuntimeOp`` (and the structs and constructors around
it) lowered to Python classes that generated modules carry beside their kernels."""

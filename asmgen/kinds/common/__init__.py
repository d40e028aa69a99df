"""Template helpers shared by the kernel kinds (buffer resource constants, ...)."""

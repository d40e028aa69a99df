"""Hardware knowledge of gfx942/gfx950: operands, instruction specs, hazards, MFMA layouts, emulator.

Imports nothing from asmgen."""

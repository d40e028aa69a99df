"""Cycle-model profiling shared by the kinds: ``common`` (contract -> emulated streams -> modeled
CU) and ``foreign`` (kernels asmgen did not generate, for calibration)."""

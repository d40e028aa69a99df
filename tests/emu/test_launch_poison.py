"""Registers a launch does not define hold seeded garbage, not zeros (isa.emu.launch.poison_wave).

A kernel that reads a register it never wrote must not pass by luck: on hardware such a register
holds stale data, so the emulator gives it a seed-dependent value.
"""
from __future__ import annotations

import numpy as np

from asmgen.builder import KernelBuilder
from asmgen.emit import emit_kernel
from asmgen.kernarg import ArgSpec, pack_kernargs
from asmgen.toolchain import find_toolchain
from isa.emu import Emulator
from isa.operands import s, v
from isa.waitcnt_enc import waitcnt_imm

ARGS = [ArgSpec("out", "buffer", "u32", io="out")]


def _kernel(arch: str) -> bytes:
    b = KernelBuilder(arch)
    b.emit("s_load_dwordx2", s(4, 2), s(0, 2), 0x0)
    b.emit("s_waitcnt", waitcnt_imm(lgkmcnt=0))
    b.emit("v_mov_b32", v(4), s(20))          # s20: never written, not set by the launch
    b.emit("v_mov_b32", v(5), v(7))           # v7: never written either
    b.emit("v_lshlrev_b32", v(3), 3, v(0))    # 8 bytes per lane
    b.emit("global_store_dwordx2", v(3), v(4, 2), s(4, 2))
    b.emit("s_endpgm")
    res = b.resources("poison", args=ARGS, max_flat_workgroup_size=64)
    return find_toolchain().assemble(emit_kernel(b.program(), res), arch)


def _run(hsaco: bytes, arch: str, seed: int) -> np.ndarray:
    out = np.zeros(128, np.uint32)
    emu = Emulator(arch=arch, seed=seed)
    emu.launch(hsaco, kernel="poison", grid=(1, 1, 1), block=(64, 1, 1),
               kernargs=pack_kernargs(ARGS, {"out": out}, emu.alloc))
    return out.reshape(64, 2)


def test_undefined_registers_are_seeded_garbage():
    hsaco = _kernel("gfx942")
    a, again, b = _run(hsaco, "gfx942", 1), _run(hsaco, "gfx942", 1), _run(hsaco, "gfx942", 2)
    assert np.array_equal(a, again), "same seed must give the same run"
    assert (a[:, 0] == a[0, 0]).all(), "an SGPR is one value for every lane"
    assert a[0, 0] != b[0, 0] and not np.array_equal(a[:, 1], b[:, 1]), "garbage must depend on the seed"
    assert np.count_nonzero(a) > 100, "undefined registers must not read as zero"

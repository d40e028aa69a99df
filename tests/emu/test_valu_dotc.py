"""The accumulating VOP2 dot products clang-22 emits for __builtin_amdgcn_sdot4/sdot2/sdot8 on
gfx942/gfx950 (v_dot4c_i32_i8, v_dot2c_i32_i16, v_dot8c_i32_i4; gfx950 v_dot2c_f32_bf16): D = dot(S0, S1)
+ D, signed elements, wrapping (LLVM VOP2Instructions.td; CDNA3 ISA V_DOT4C_I32_I8)."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run
from ml_dtypes import bfloat16

from isa.emu import Emulator
from isa.emu.errors import PendingReadError

LANES = np.arange(64)


def _ref(x, y, d, bits):
    s = d.astype(np.int64)
    for k in range(32 // bits):
        a = (x.astype(np.int64) >> (bits * k)) & ((1 << bits) - 1)
        b = (y.astype(np.int64) >> (bits * k)) & ((1 << bits) - 1)
        a = np.where(a >> (bits - 1), a - (1 << bits), a)
        b = np.where(b >> (bits - 1), b - (1 << bits), b)
        s = s + a * b
    return (s & 0xFFFFFFFF).astype(np.uint32)


@pytest.mark.parametrize("op,bits", [("v_dot4c_i32_i8", 8), ("v_dot2c_i32_i16", 16), ("v_dot8c_i32_i4", 4)])
def test_dotc_accumulates_into_d(op, bits):
    rng = np.random.default_rng(bits)
    x, y, d = (rng.integers(0, 1 << 32, 64, dtype=np.uint32) for _ in range(3))
    d[0] = 0x7FFFFFFF                                   # wraps (VOP2: no clamp)
    m = run(f"""
      {op} v3, v1, v2
      s_endpgm""", vgprs={1: x, 2: y, 3: d})
    assert np.array_equal(m.waves[0].vgpr[3], _ref(x, y, d, bits))


def test_dot2c_bf16_gfx950():
    a = (np.arange(128) % 17 / 4 - 2).astype(bfloat16).view(np.uint32)
    b = (np.arange(128) % 13 / 8 - 0.75).astype(bfloat16).view(np.uint32)
    acc = np.full(64, 1.5, np.float32)
    m = run("""
      v_dot2c_f32_bf16 v3, v1, v2
      s_endpgm""", emu=Emulator(arch="gfx950"), vgprs={1: a, 2: b, 3: acc.view(np.uint32)})
    fa = a.view(bfloat16).astype(np.float64).reshape(64, 2)
    fb = b.view(bfloat16).astype(np.float64).reshape(64, 2)
    assert np.array_equal(m.waves[0].vgpr[3].view(np.float32), ((fa * fb).sum(1) + 1.5).astype(np.float32))


def test_dotc_reads_d_so_a_pending_load_into_d_is_an_error():
    emu = Emulator()
    src = np.zeros(64, np.uint32)
    p = emu.alloc(src)
    with pytest.raises(PendingReadError):
        run("""
          v_lshlrev_b32 v4, 2, v0
          global_load_dword v3, v4, s[0:1]
          v_dot4c_i32_i8 v3, v1, v2
          s_endpgm""", emu=emu, sgprs={0: [p & 0xFFFFFFFF, p >> 32]}, vgprs={0: LANES})

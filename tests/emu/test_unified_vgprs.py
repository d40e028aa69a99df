"""gfx90a+ unified VGPR file (AMDGPUUsage compute_pgm_rsrc3 GFX90A/GFX942 "ACCUM_OFFSET: offset
of a first AccVGPR in the unified register file"; CDNA3 ISA guide, "Unified VGPR file"): the
ArchVGPR budget is the whole allocation, accum_offset only places a0. AMD's aiter gfx942 kernels
use v160-v255 with accum_offset 160 and no AGPRs."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from hand_kernel import hand_kernel, needs_mc

from isa.codeobj import CodeObject
from isa.emu import Emulator
from isa.emu.errors import LaunchError, RegisterBudgetError

pytestmark = needs_mc

BODY = """
  s_load_dwordx2 s[2:3], s[0:1], 0
  v_lshlrev_b32 v{v}, 2, v0
  v_mul_u32_u24 v1, 3, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v{v}, v1, s[2:3]
  s_endpgm"""


def _dirs(vgprs: int, accum: int) -> str:
    return (f"  .amdhsa_next_free_vgpr {vgprs}\n  .amdhsa_next_free_sgpr 8\n"
            f"  .amdhsa_accum_offset {accum}\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
            "  .amdhsa_user_sgpr_count 2\n  .amdhsa_float_denorm_mode_32 3")


def _run(hs):
    out = np.zeros(64, np.uint32)
    emu = Emulator()
    emu.launch(hs, "k", kernargs=struct.pack("<Q", emu.alloc(out)))
    return out


def test_vgpr_beyond_accum_offset_is_within_the_budget():
    hs = hand_kernel(BODY.format(v=163), _dirs(256, 160))
    d = CodeObject.from_bytes(hs).kernel("k").descriptor
    assert d.accum_offset == 160 and d.arch_vgpr_budget == 256 and d.agpr_budget == 96
    assert (_run(hs) == 3 * np.arange(64)).all()


def test_vgpr_beyond_the_allocation_is_still_refused():
    hs = hand_kernel(BODY.format(v=170), _dirs(168, 160))
    with pytest.raises(RegisterBudgetError, match="v170 is beyond .* budget of 168"):
        _run(hs)


def test_one_register_named_as_v_and_a_is_refused():
    body = BODY.format(v=163).replace("  s_endpgm", "  v_accvgpr_write_b32 a3, v1\n  s_endpgm")
    hs = hand_kernel(body, _dirs(256, 160))
    with pytest.raises(LaunchError, match="v163 and a3, one register of the unified"):
        _run(hs)

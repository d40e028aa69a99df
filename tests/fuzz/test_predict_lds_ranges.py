"""The predictor's LDS byte ranges (``asmgen.fuzz.lds_ranges``, ``predict.published_read``): a
wait deleted before an ``s_barrier`` leaves an LDS write unpublished; it is a mutation site only
when a later read may touch the write's bytes before the writer retires it. Three rotating LDS
buffers (the gfx950 fp8 TN pgr2 proof kernel) made a benign survivor of the old byte-blind rule;
an unpublished LDS-DMA is accepted with either error the emulator can name first."""
from __future__ import annotations

import pytest

from asmgen.fuzz.lds_ranges import Ranges, overlap
from asmgen.fuzz.mutate import SURVIVED, Mutant, Program, kernel_waves, run_mutant
from asmgen.fuzz.mutate_campaign import build_proof_kernel, proof_kernels
from asmgen.fuzz.mutate_sites import sites_waitcnt
from asmgen.fuzz.predict import published_read
from asmgen.target import target_of
from isa.asm_parse import parse_line


def _prog(body: str, arch: str = "gfx942") -> Program:
    lines = ["k:"] + [ln.strip() if ln.strip().endswith(":") else "  " + ln.strip()
                      for ln in body.strip().splitlines()]
    return Program.from_asm("\n".join(lines), target_of(arch), "k")


def _stream(read_base: str) -> str:
    """2 waves (128 work-items): each lane writes its dword of buffer 2 (0x4800), the wait
    before the barrier is instruction 7, the read after it uses ``read_base``."""
    return f"""
        v_and_b32 v1, 0x3ff, v0
        v_lshlrev_b32 v1, 2, v1
        s_mov_b32 s4, 0x2400
        s_mov_b32 s5, 0x4800
        v_add_u32 v2, s5, v1
        v_add_u32 v3, {read_base}, v1
        ds_write_b32 v2, v4
        s_waitcnt lgkmcnt(0)
        s_barrier
        ds_read_b32 v5, v3
        s_waitcnt lgkmcnt(0)
        v_add_u32 v6, v5, v5
        s_endpgm
    """


def _wait_sites(prog: Program) -> dict[int, tuple]:
    dels, _ = sites_waitcnt(prog, 2)
    return {m.site: m.expected for m in dels}


def test_read_of_another_buffer_is_not_a_site_and_of_the_same_bytes_is():
    """The old rule (any LDS read while the write is pending) offered the first as a site; the
    bytes (buffer 1, 0x2400.. vs buffer 2, 0x4800..) show nothing reads the write early."""
    assert 7 not in _wait_sites(_prog(_stream("s4")))
    assert _wait_sites(_prog(_stream("s5")))[7] == ("LdsRaceError",)
    # an address the intervals cannot follow (loaded from memory) may touch any byte
    unknown = _stream("s4").replace("s_mov_b32 s4, 0x2400", "s_load_dword s4, s[0:1], 0")
    unknown = unknown.replace("v_add_u32 v2", "s_waitcnt lgkmcnt(0)\nv_add_u32 v2")
    prog = _prog(unknown)
    i = next(n for n, x in enumerate(prog.instrs) if x.op == "s_barrier") - 1
    assert _wait_sites(prog)[i] == ("LdsRaceError",)


def test_a_load_left_pending_at_the_loop_end_is_met_in_the_next_trip_first():
    """The wait at the loop's end covers a ds_write (unpublished at the barrier: its bytes are
    not read before the next wait) and a ds_read whose result the next trip's first instruction
    reads: the emulator meets that register read first (the old text-order walk, one trip,
    predicted the unpublished write's LdsRaceError)."""
    prog = _prog("""
        s_mov_b32 s0, 4
        v_and_b32 v1, 0x3ff, v0
        v_lshlrev_b32 v1, 2, v1
        ds_read_b32 v5, v1 offset:1024
        s_waitcnt lgkmcnt(0)
        loop:
        v_add_u32 v6, v5, v5
        ds_write_b32 v1, v6
        ds_read_b32 v5, v1 offset:1024
        s_waitcnt lgkmcnt(0)
        s_barrier
        s_sub_u32 s0, s0, 1
        s_cmp_lg_u32 s0, 0
        s_cbranch_scc1 loop
        s_endpgm
    """)
    assert prog.loop_ranges() == [range(5, 12)]
    assert _wait_sites(prog)[8] == ("PendingReadError",)


def test_ranges_follow_address_arithmetic_and_partial_exec():
    t = target_of("gfx942")
    r = Ranges(t, 256)
    for s in ("v_and_b32 v1, 0x3ff, v0", "v_lshrrev_b32 v2, 4, v1", "v_mul_u32_u24 v3, 0x48, v2",
              "v_lshl_add_u32 v4, v1, 2, v3", "s_mov_b32 s7, 0x1200", "v_add_u32 v5, s7, v4"):
        r.step(parse_line(s, "gfx942"))
    assert r.val[("v", -1, 2)] == (0, 15) and r.val[("v", -1, 3)] == (0, 1080)
    assert r.access(parse_line("ds_read_b128 v[8:11], v5 offset:16", "gfx942")) == \
        (0x1200 + 16, 0x1200 + 1020 + 1080 + 16 + 15)
    assert r.access(parse_line("ds_read2_b64 v[8:11], v2 offset0:1 offset1:4", "gfx942")) == \
        (8, 15 + 32 + 7)
    r.step(parse_line("s_and_saveexec_b64 s[8:9], vcc", "gfx942"))
    r.step(parse_line("v_mov_b32 v2, 0x8000", "gfx942"))     # inactive lanes keep 0..15
    assert r.val[("v", -1, 2)] == (0, 0x8000)
    r.step(parse_line("v_perm_b32 v2, v1, v1, s7", "gfx942"))
    assert ("v", -1, 2) not in r.val and overlap(None, (0, 3)) and not overlap((0, 3), (4, 7))


@pytest.fixture(scope="module")
def proof():
    specs = proof_kernels("gemm")
    return {n: build_proof_kernel("gemm", specs[n]) for n in (9, 10)}


def _prog_of(kern) -> Program:
    return Program.from_asm(kern.asm, kern.config.target, kern.name)


def test_fp8_tn_pgr2_rotating_buffer_wait_is_benign_on_the_emulator(proof):
    """The loop's last wait before its s_barrier covers ds_writes to the buffer read two
    barriers later (27,648 B = 3 x 9,216); the writer's next lgkmcnt(0) retires them first. The
    predictor calls it benign (no site) and the emulator agrees (the mutant passes)."""
    kern = proof[10]
    prog = _prog_of(kern)
    body = prog.loop_ranges()[0]
    bar = max(i for i in body if prog.instrs[i].op == "s_barrier")
    wait = bar - 1
    assert str(prog.instrs[wait]) == "s_waitcnt lgkmcnt(0)"
    assert published_read(prog.instrs, prog.target, wait, prog.loop_ranges(),
                          64 * kernel_waves(kern)) is None
    dels, _ = sites_waitcnt(prog, kernel_waves(kern))
    assert wait not in {m.site for m in dels}
    r = run_mutant(kern, prog, Mutant("delete_waitcnt", wait, "", [("del", wait, "")], ()))
    assert r.outcome == SURVIVED, r.message


def test_unpublished_lds_dma_accepts_either_error_and_is_killed(proof):
    """Deleting the i8 DMA kernel's vmcnt(0) before the first barrier leaves its prologue
    LDS-DMA unpublished: its own wave's read is a PendingReadError, another wave's a race."""
    kern = proof[9]
    prog = _prog_of(kern)
    bar = next(i for i, x in enumerate(prog.instrs) if x.op == "s_barrier")
    dels, _ = sites_waitcnt(prog, kernel_waves(kern))
    m = next(m for m in dels if m.site == bar - 1)
    assert m.expected == ("LdsRaceError", "PendingReadError")
    r = run_mutant(kern, prog, m)
    assert r.killed and r.precise, (r.outcome, r.message)

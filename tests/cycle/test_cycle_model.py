"""The cycle model on tiny hand-made streams whose timing is worked out by hand in each test.

Numbers used: SIMD s issues at clk = s (mod 4); 32x32x8 bf16 = 8 passes = 32 clk (facts 2.1);
VALU 4 clk; VMEM L2-hit latency 288 clk; LDS latency 52 clk, 64 B/clk per port (cdna-timing).
"""
from __future__ import annotations

import math

import pytest

from isa.asm_parse import parse_line
from isa.cycle import CycleModelError, WaveStream, params_for, simulate, streams_from_asm
from isa.cycle.params import CycleParamError

MFMA = "v_mfma_f32_32x32x8_bf16 a[0:15], v[0:1], v[2:3], a[0:15]"
MFMA_950 = "v_mfma_f32_32x32x16_bf16 a[0:15], v[0:3], v[4:7], a[0:15]"


def lines(*parts: str) -> str:
    return "\n".join(parts)


def issue_times(res, wave: int = 0) -> list[int]:
    return [r.t for r in res.waves[wave].issues]


@pytest.mark.parametrize("arch,mfma", [("gfx942", MFMA), ("gfx950", MFMA_950)])
def test_dependent_mfma_chain(arch, mfma):
    n = 10
    res = simulate(arch, streams_from_asm([lines(*[mfma] * n)]))
    # each MFMA waits for the previous one on the same accumulator: N * passes * 4 clk
    assert issue_times(res) == [32 * k for k in range(n)]
    assert res.cycles == n * 8 * 4
    assert res.waves[0].stalls["dependency"] == (n - 1) * (32 - 4)


def test_independent_mfmas_on_four_simds_run_in_parallel():
    n = 6
    par = simulate("gfx942", streams_from_asm([lines(*[MFMA] * n)] * 4))
    # SIMD s starts at clk s, so the last one ends 3 clk after SIMD 0
    assert par.cycles == n * 32 + 3
    assert [len(v) for v in par.mfma.values()] == [n] * 4
    one = simulate("gfx942", streams_from_asm([lines(*[MFMA] * n)] * 4, simds=[0, 0, 0, 0]))
    assert one.cycles == 4 * n * 32          # one MFMA pipe: everything serialises


def test_independent_accumulators_still_share_the_pipe():
    text = lines(*[f"v_mfma_f32_32x32x8_bf16 a[{16 * i}:{16 * i + 15}], v[0:1], v[2:3], "
                   f"a[{16 * i}:{16 * i + 15}]" for i in range(4)])
    res = simulate("gfx942", streams_from_asm([text]))
    assert issue_times(res) == [0, 32, 64, 96]
    assert res.waves[0].stalls["issue"] == 3 * 28     # pipe busy, no data dependency
    assert res.waves[0].stalls["dependency"] == 0


def test_waitcnt_exposes_vmem_latency():
    p = params_for("gfx942")
    text = lines("buffer_load_dword v1, v0, s[0:3], 0 offen",
                 "s_waitcnt vmcnt(0)",
                 "v_add_u32 v2, v1, v1")
    res = simulate("gfx942", streams_from_asm([text]))
    done = 64 * 4 / p.vmem_bytes_per_clk(0.0) + 288       # transfer + L2-hit latency
    assert p.vmem_l2_latency == 288
    wait_t = issue_times(res)[1]
    assert wait_t == 4 * math.ceil(done / 4) == 296
    assert res.waves[0].stalls["waitcnt_vmcnt"] == pytest.approx(done - 4)
    assert issue_times(res)[2] == wait_t + 4


def test_waitcnt_vmcnt_n_waits_only_for_older_loads():
    text = lines("buffer_load_dword v1, v0, s[0:3], 0 offen",
                 "s_nop 15", "s_nop 15", "s_nop 15",
                 "buffer_load_dword v2, v0, s[0:3], 0 offen",
                 "s_waitcnt vmcnt(1)",
                 "s_waitcnt vmcnt(0)")
    res = simulate("gfx942", streams_from_asm([text]))
    t = issue_times(res)
    assert t[4] == 4 + 3 * 64                       # three s_nop 15 = 48 slots
    assert t[5] == 296                              # first load only
    assert 296 < t[6] <= t[4] + 296                 # second load, issued 196 clk later


def test_waitcnt_lgkm_lds_bandwidth_and_latency():
    text = lines("ds_read_b128 v[4:7], v1", "s_waitcnt lgkmcnt(0)")
    res = simulate("gfx942", streams_from_asm([text]))
    # 64 lanes x 16 B = 1024 B at 64 B/clk per port = 16 clk, + 52 clk latency
    assert issue_times(res)[1] == 68
    assert res.waves[0].stalls["waitcnt_lgkmcnt"] == 64
    # two waves on SIMDs 0 and 1 share one LDS port: the second read queues behind the first
    two = simulate("gfx942", streams_from_asm([text, text]))
    assert issue_times(two, 1)[1] == 85   # port free at 16, done 16 + 16 + 52 = 84, SIMD 1 slot 85
    assert two.waves[1].stalls["waitcnt_lgkmcnt"] == pytest.approx(84 - 5)
    # SIMDs 0 and 2 use different ports: no queueing
    sep = simulate("gfx942", streams_from_asm([text, text], simds=[0, 2]))
    assert issue_times(sep, 1)[1] == 70


def test_lds_dma_uses_the_lds_port():
    text = lines("buffer_load_dword v1, s[0:3], 0 offen lds", "ds_read_b128 v[4:7], v2",
                 "s_waitcnt lgkmcnt(0)")
    res = simulate("gfx942", streams_from_asm([text]))
    # the DMA's 256 B hold the port 4 clk from clk 0; the read (clk 4) starts at 4: no delay
    assert issue_times(res)[2] == 72                # 4 + 16 + 52
    dense = lines("buffer_load_dwordx4 v[8:11], v1, s[0:3], 0 offen",   # not a DMA: no port use
                  "ds_read_b128 v[4:7], v2", "s_waitcnt lgkmcnt(0)")
    assert issue_times(simulate("gfx942", streams_from_asm([dense])))[2] == 72
    # gfx950 16-B DMA: 1024 B hold the port 8 clk (128 B/clk), so the read issued at 4 starts at 8
    wide = lines("buffer_load_dwordx4 v1, s[0:3], 0 offen lds", "ds_read_b128 v[4:7], v2",
                 "s_waitcnt lgkmcnt(0)")
    assert issue_times(simulate("gfx950", streams_from_asm([wide])))[2] == 8 + 8 + 52
    alone = lines("s_nop 0", "ds_read_b128 v[4:7], v2", "s_waitcnt lgkmcnt(0)")
    assert issue_times(simulate("gfx950", streams_from_asm([alone])))[2] == 4 + 8 + 52


def test_lds_bank_conflicts_add_port_cycles():
    ins = [parse_line("ds_read_b128 v[4:7], v1"), parse_line("s_waitcnt lgkmcnt(0)")]
    res = simulate("gfx942", [WaveStream(0, ins, lds_conflicts=[8, 0])])
    assert issue_times(res)[1] == 76                # 16 + 8 + 52


def test_barrier_fast_wave_waits_for_slow_wave():
    fast = lines("s_barrier", "s_endpgm")
    slow = lines(*[MFMA] * 10, "s_barrier", "s_endpgm")
    res = simulate("gfx942", streams_from_asm([fast, slow]))
    # slow wave (SIMD 1): MFMAs at 1, 33, ..., 289; barrier issues at 293; release +4 = 297
    assert issue_times(res, 1)[10] == 293
    assert res.waves[0].stalls["barrier"] == 297 - 4
    assert issue_times(res, 0)[1] == 300            # next SIMD 0 slot after the release
    assert issue_times(res, 1)[11] == 297


def test_barrier_ignores_finished_waves():
    res = simulate("gfx942", streams_from_asm(["s_barrier\ns_endpgm", "s_endpgm"]))
    assert issue_times(res, 0) == [0, 8]            # released when wave 1 ends at clk 1 (+4)


def test_waves_meeting_at_one_barrier_do_not_stall():
    both = [WaveStream(0, [parse_line("s_barrier")]), WaveStream(1, [parse_line("s_barrier")], simd=0)]
    res = simulate("gfx942", both)
    assert res.waves[0].stalls["barrier"] == 0 and res.cycles == 4


def test_too_many_waves_on_a_simd_is_an_error():
    with pytest.raises(CycleModelError, match="9 waves on SIMD 0, more than 8"):
        simulate("gfx942", streams_from_asm(["s_endpgm"] * 9, simds=[0] * 9))
    with pytest.raises(CycleModelError, match="simd 4"):
        simulate("gfx942", streams_from_asm(["s_endpgm"], simds=[4]))


@pytest.mark.parametrize("prio_young,first", [(3, 1), (0, 0)])
def test_setprio_arbitration(prio_young, first):
    body = [f"v_add_u32 v{i + 10}, v1, v2" for i in range(8)]
    old = lines("s_setprio 0", *body)
    young = lines(f"s_setprio {prio_young}", *body)
    res = simulate("gfx942", streams_from_asm([old, young], simds=[0, 0]))
    winner, loser = first, 1 - first
    assert issue_times(res, winner)[1:] == [4 * (k + 1) for k in range(8)]
    assert issue_times(res, loser)[1:] == [36 + 4 * k for k in range(8)]
    assert res.waves[loser].stalls["issue"] == 32


def test_valu_co_issues_beside_mfma():
    # a 32-clk MFMA leaves 7 slots (28 clk) for VALU (facts 2.1 CALC)
    valu = [f"v_add_u32 v{i + 10}, v1, v2" for i in range(8)]
    base = simulate("gfx942", streams_from_asm([lines(MFMA, MFMA)]))
    seven = simulate("gfx942", streams_from_asm([lines(MFMA, *valu[:7], MFMA)]))
    eight = simulate("gfx942", streams_from_asm([lines(MFMA, *valu, MFMA)]))
    assert base.cycles == seven.cycles == 64
    assert issue_times(seven)[-1] == 32
    assert eight.cycles == 68                        # the eighth VALU takes the MFMA's slot
    # another wave's VALU on the same SIMD co-issues too
    two = simulate("gfx942", streams_from_asm([lines(MFMA, MFMA), lines(*valu[:7])], simds=[0, 0]))
    assert two.cycles == 64 and issue_times(two, 1) == [4 * (k + 1) for k in range(7)]


@pytest.mark.parametrize("arch,ready", [("gfx942", 48), ("gfx950", 52)])
def test_valu_reading_mfma_result_waits_hazard_states(arch, ready):
    # XDL write -> VALU read: P+3 (gfx942) / P+4 (gfx950) wait states of 4 clk after the MFMA slot
    text = lines(MFMA, "v_accvgpr_read_b32 v10, a3")
    res = simulate(arch, streams_from_asm([text]))
    assert issue_times(res)[1] == ready
    assert res.waves[0].stalls["dependency"] == ready - 4


def test_nops_pad_time_and_are_reported():
    res = simulate("gfx942", streams_from_asm([lines("s_nop 3", "s_endpgm")]))
    assert issue_times(res) == [0, 16]
    assert res.waves[0].stalls["nop"] == 12


def test_transcendental_holds_the_valu_16_clk():
    text = lines("v_exp_f32 v1, v2", "v_add_u32 v3, v4, v5")
    res = simulate("gfx942", streams_from_asm([text]))
    assert issue_times(res) == [0, 16]


def test_params_have_sources_and_reject_unknowns():
    p = params_for("gfx950")
    assert p.lds_bytes_per_clk == 256 and "timing §2" in p.source("lds_bytes_per_clk")
    assert params_for("gfx942", "MI325X").hbm_tbps == 6.0
    assert all(v["src"] for v in p.table().values())
    with pytest.raises(CycleParamError, match="gfx1100"):
        params_for("gfx1100")
    with pytest.raises(CycleParamError, match="MI355X is gfx950"):
        params_for("gfx942", "MI355X")
    with pytest.raises(CycleParamError, match="no_such"):
        p.value("no_such")

"""One hand-checked micro-stream (or hand-computed device case) per cycle-model mechanism that the
calibration rests on: issue slots and co-issue, taken branches, LDS store times and read widths,
the VMEM channel, workgroup-to-XCD dispatch, per-XCD L2 / MALL / HBM traffic and floors, loaded
latency, instruction-cache overflow, wave quantisation, the clock table and the bound breakdown.

Numbers: SIMD s issues at clk s (mod 4); 16x16x16 bf16 = 4 passes = 16 clk; LDS port 64 B/clk;
RPC-PIPE store times 8 clk (4 B/lane) and 20 clk (16 B/lane); taken branch 32 clk (SISCHED).
"""
from __future__ import annotations

import pytest

from isa.asm_parse import parse_line
from isa.cycle import WaveStream, params_for, simulate, streams_from_asm
from isa.cycle.problem import (
    TileGrid,
    gemm_traffic,
    icache_extra_clk,
    loaded_latency,
    memory_floors,
    trip_bound,
    xcd_of,
)
from isa.cycle.report import bound_breakdown, problem_tflops

MFMA16 = "v_mfma_f32_16x16x16_bf16 a[0:3], v[0:1], v[2:3], a[0:3]"


def times(res, wave=0):
    return [r.t for r in res.waves[wave].issues]


# ---------------------------------------------------------------------------------------------
# issue

def test_one_instruction_per_wave_per_slot_two_waves_co_issue():
    # one wave: SALU then VALU need two slots (0, 4); two waves on one SIMD, one SALU and one
    # VALU: both issue in slot 0 (different classes, different waves)
    one = simulate("gfx942", streams_from_asm(["s_mov_b32 s4, 0\nv_mov_b32 v1, 0"]))
    assert times(one) == [0, 4]
    two = simulate("gfx942", streams_from_asm(["s_mov_b32 s4, 0", "v_mov_b32 v1, 0"], simds=[0, 0]))
    assert times(two, 0) == [0] and times(two, 1) == [0]
    # same class from two waves of one SIMD: one per slot
    same = simulate("gfx942", streams_from_asm(["s_mov_b32 s4, 0", "s_mov_b32 s5, 0"], simds=[0, 0]))
    assert sorted(times(same, 0) + times(same, 1)) == [0, 4]


def test_three_instructions_fit_beside_a_16_clk_mfma():
    # MFMA at 0 (pipe busy to 16), three independent scalar/VALU ops at 4, 8, 12, next MFMA at 16
    body = (MFMA16, "s_add_u32 s4, s4, 1", "v_mov_b32 v8, 0", "s_add_u32 s5, s5, 1",
            "v_mfma_f32_16x16x16_bf16 a[4:7], v[0:1], v[2:3], a[4:7]")
    text = "\n".join(body)
    res = simulate("gfx942", streams_from_asm([text]))
    assert times(res) == [0, 4, 8, 12, 16]
    # a fourth one pushes the next MFMA a slot later: the issue slots, not the pipe, bound it
    text4 = text.replace("s_add_u32 s5, s5, 1", "s_add_u32 s5, s5, 1\ns_add_u32 s6, s6, 1")
    assert times(simulate("gfx942", streams_from_asm([text4])))[-1] == 20


def test_taken_branch_refills_not_taken_costs_a_slot():
    ins = [parse_line(t) for t in ("s_cbranch_scc1 1", "s_nop 0", "s_mov_b32 s4, 0")]
    taken = simulate("gfx942", [WaveStream(0, [ins[0], ins[2]], pcs=[0, 2])])
    assert times(taken) == [0, 32]
    assert taken.waves[0].stalls["branch"] == 28
    fall = simulate("gfx942", [WaveStream(0, [ins[0], ins[1]], pcs=[0, 1])])
    assert times(fall) == [0, 4]


# ---------------------------------------------------------------------------------------------
# LDS

@pytest.mark.parametrize("store,port_clk", [("ds_write_b32 v1, v2", 8), ("ds_write_b64 v1, v[2:3]", 12),
                                            ("ds_write_b128 v1, v[2:5]", 20)])
def test_lds_store_port_time(store, port_clk):
    # the store holds the port port_clk, returns 52 clk later; the wait issues at the next slot
    res = simulate("gfx942", streams_from_asm([store + "\ns_waitcnt lgkmcnt(0)"]))
    done = port_clk + 52
    assert times(res)[1] == 4 * -(-done // 4)
    assert res.lds_busy[0] == [(0, port_clk)]


def test_ds_read_b64_vs_b128_port_time():
    # reads move 64 B/clk per port: b64 = 512 B = 8 clk, b128 = 1024 B = 16 clk, same bandwidth
    for text, clk in (("ds_read_b64 v[4:5], v1", 8), ("ds_read_b128 v[4:7], v1", 16)):
        res = simulate("gfx942", streams_from_asm([text + "\ns_waitcnt lgkmcnt(0)"]))
        assert res.lds_busy[0] == [(0, clk)]
    # two b64 reads from SIMDs 0 and 1 (one port) serialise: the second starts at 8
    two = simulate("gfx942", streams_from_asm(["ds_read_b64 v[4:5], v1"] * 2, simds=[0, 1]))
    assert two.lds_busy[0] == [(0, 8), (8, 16)]


# ---------------------------------------------------------------------------------------------
# vector memory path of the CU

def test_vmem_channel_serialises_loads_of_all_waves():
    p = params_for("gfx942")
    bw = p.vmem_bytes_per_clk(0.0)          # min(vector L1 128, L2 share 2048/38)
    assert bw == pytest.approx(2048 / 38)
    res = simulate("gfx942", streams_from_asm(["buffer_load_dwordx4 v[4:7], v0, s[0:3], 0 offen"] * 4))
    ends = [e for _, e in res.vmem_busy]
    assert ends == pytest.approx([1024 / bw * (i + 1) for i in range(4)])


# ---------------------------------------------------------------------------------------------
# device: XCD dispatch, L2 per XCD, MALL, HBM

def test_round_robin_xcd_and_tile_orders():
    assert [xcd_of(w, 8) for w in range(10)] == [0, 1, 2, 3, 4, 5, 6, 7, 0, 1]
    g = TileGrid(1024, 512, 64, (256, 256, 64))             # 4 x 2 tiles
    assert [g.tile_of(w) for w in range(8)] == [(0, 0), (1, 0), (2, 0), (3, 0),
                                                (0, 1), (1, 1), (2, 1), (3, 1)]
    n = TileGrid(1024, 512, 64, (256, 256, 64), order="n_fastest")
    assert [n.tile_of(w) for w in range(4)] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    t = TileGrid(1024, 512, 64, (256, 256, 64), order="grouped", group=2)
    # Triton's swizzle: groups of 2 tile rows walk down the rows first
    assert [t.tile_of(w) for w in range(8)] == [(0, 0), (1, 0), (0, 1), (1, 1),
                                                (2, 0), (3, 0), (2, 1), (3, 1)]


def test_gemm_traffic_by_hand_one_round_of_304_tiles():
    # AMD's MAF shape 4096x4864 with 256x256 tiles = 16 x 19 = 304 tiles = one round on MI300X.
    # m_fastest: wg = i + 16 j -> XCD = i % 8, so XCD x holds tile rows {x, x+8} and all 19 columns
    p = params_for("gfx942", "MI300X")
    g = TileGrid(4096, 4864, 32896, (256, 256, 64))
    tr = gemm_traffic(p, g, wgs_per_cu=1)
    slab = 64 * 2
    assert tr["wgs"] == 304
    assert tr["l2_requests_xcd"] == [38 * 512 * slab] * 8
    assert tr["l2_misses_xcd"] == [(2 * 256 + 19 * 256) * slab] * 8
    assert tr["hbm_bytes"] == (4096 + 4864) * slab
    assert tr["l2_hit"] == pytest.approx(1 - 21 / 76)
    fl = memory_floors(p, tr, clock_mhz=1207)
    assert fl["l2"] == pytest.approx(38 * 512 * slab / 917)        # measured L2 rate: 2715 clk
    assert fl["mall"] == pytest.approx(8 * 21 * 256 * slab / (11.9e12 / 1207e6))
    assert fl["hbm"] == pytest.approx(8960 * slab / (4.1e12 / 1207e6))
    # a 256x256x64 trip is 4096 MFMA clk: the memory floors are far below (compute bound)
    assert trip_bound(4096.0, fl) == (4096.0, "cu")
    assert trip_bound(100.0, fl) == (pytest.approx(fl["l2"]), "l2")


def test_grouped_order_loses_l2_reuse_across_xcds():
    # 8192^2 with 128x128 tiles, 2 WG/CU: Triton's GROUP 8 puts the 8 rows of a group on 8
    # different XCDs (round robin), so each XCD sees ~1 row per group: fewer L2 hits than
    # a walk along M that keeps a column's tiles together on one XCD? compute both exactly
    p = params_for("gfx942", "MI300X")
    grouped = gemm_traffic(p, TileGrid(8192, 8192, 8192, (128, 128, 64), order="grouped"), 2)
    walk = gemm_traffic(p, TileGrid(8192, 8192, 8192, (128, 128, 64)), 2)
    # m_fastest: 64 tile rows -> XCD x holds rows {x, x+8, ..} (8 of them) over 76/8 ~ 10 columns
    assert walk["wgs"] == grouped["wgs"] == 608
    assert walk["l2_misses_xcd"][0] == (8 * 128 + 10 * 128) * 128
    assert grouped["l2_hit"] < walk["l2_hit"]


def test_loaded_latency_mixes_l2_mall_hbm():
    p = params_for("gfx942")
    tr = {"l2_hit": 0.5, "mall_hit": 0.75}
    assert loaded_latency(p, tr) == pytest.approx(0.5 * 288 + 0.5 * (0.75 * 460 + 0.25 * 876))
    # the CU model takes it as its load latency
    res = simulate("gfx942", streams_from_asm([("buffer_load_dword v1, v0, s[0:3], 0 offen\n"
                                               "s_waitcnt vmcnt(0)")]), vmem_latency=500)
    assert times(res)[1] == 4 * -(-(256 / (2048 / 38) + 500) // 4)


def test_icache_overflow_costs_a_refill_per_trip():
    p = params_for("gfx942")
    assert icache_extra_clk(p, 60_000) == 0.0
    assert icache_extra_clk(p, 80_000) == pytest.approx(80_000 / 64)


def test_wave_quantisation_1024_tiles_on_304_cus():
    p = params_for("gfx942", "MI300X")
    r = problem_tflops(p, 2.0 * 8192 ** 3, n_wg=1024, cycles_per_round=1000.0)
    assert r["rounds"] == 4                                 # ceil(1024 / 304)
    assert r["cu_utilisation"] == pytest.approx(1024 / (4 * 304))   # 84 %
    q = params_for("gfx950", "MI355X")
    assert problem_tflops(q, 1.0, n_wg=1024, cycles_per_round=1.0)["cu_utilisation"] == 1.0


def test_clock_table_one_place():
    # the clocks of the published MAF runs (cdna-timing §4/§5); MI355X's is marked
    for dev, mhz in (("MI300X", 1207), ("MI325X", 1447)):
        p = params_for("gfx942", dev)
        assert p.sustained_clock_mhz == mhz and "MAF" in p.source("sustained_clock_mhz")
    assert params_for("gfx950").sustained_clock_mhz < params_for("gfx950").clock_mhz


# ---------------------------------------------------------------------------------------------
# bound breakdown

def test_bound_breakdown_names_the_busiest_resource():
    # one wave: 4 MFMAs back to back on independent accumulators = MFMA bound
    mf = "\n".join(f"v_mfma_f32_16x16x16_bf16 a[{4 * i}:{4 * i + 3}], v[0:1], v[2:3], "
                   f"a[{4 * i}:{4 * i + 3}]" for i in range(4))
    res = simulate("gfx942", streams_from_asm([mf]))
    b = bound_breakdown(res, (0, 64))
    assert b["bound"] == "mfma" and b["shares"]["mfma"] == 1.0
    assert b["shares"]["issue"] == pytest.approx(4 * 4 / 64)
    # eight dependent-free SALU ops: issue bound (8 slots of 4 clk over 32 clk)
    sal = simulate("gfx942", streams_from_asm(["\n".join(f"s_mov_b32 s{i}, 0" for i in range(8))]))
    b = bound_breakdown(sal, (0, 32))
    assert b["bound"] == "issue" and b["shares"]["issue"] == 1.0
    # memory floors over the trip time
    b = bound_breakdown(res, (0, 64), floors={"l2": 128.0, "mall": 0.0, "hbm": 0.0}, trip_clk=64)
    assert b["bound"] == "l2" and b["shares"]["l2"] == 2.0


# ---------------------------------------------------------------------------------------------
# issue-slot contention of non-MFMA instructions (RPC-PIPE: one instruction per wave per slot;
# facts §2.1: a 16-clk MFMA leaves its wave 3 of its 4 slots)

def _mfma_with_salu(k: int, n: int = 4) -> str:
    body = []
    for i in range(n):
        body.append(f"v_mfma_f32_16x16x16_bf16 a[{4 * i}:{4 * i + 3}], v[0:1], v[2:3], "
                    f"a[{4 * i}:{4 * i + 3}]")
        body += [f"s_add_u32 s{10 + j}, s{10 + j}, 1" for j in range(k)]
    return "\n".join(body)


@pytest.mark.parametrize("k,step", [(0, 16), (2, 16), (3, 16), (4, 20), (6, 28)])
def test_non_mfma_issue_competes_with_mfma_issue_of_one_wave(k, step):
    # one wave, independent 4-pass MFMAs with k SALU ops between: up to 3 hide in the MFMA's
    # shadow; each further one delays the next MFMA by one 4-clk issue slot
    res = simulate("gfx942", streams_from_asm([_mfma_with_salu(k)]))
    mf = [r.t for r in res.waves[0].issues if r.kind == "mfma"]
    assert [b - a for a, b in zip(mf, mf[1:], strict=False)] == [step] * 3


def test_second_wave_hides_non_mfma_issue():
    # the same 4 SALU per MFMA split off to a second wave on the SIMD: they co-issue with the
    # MFMAs (different class, different wave), so the MFMA chain is back to back again
    mf = "\n".join(f"v_mfma_f32_16x16x16_bf16 a[{4 * i}:{4 * i + 3}], v[0:1], v[2:3], "
                   f"a[{4 * i}:{4 * i + 3}]" for i in range(4))
    sal = "\n".join(f"s_add_u32 s{10 + j % 8}, s{10 + j % 8}, 1" for j in range(16))
    res = simulate("gfx942", [WaveStream(0, [parse_line(x) for x in mf.splitlines()], simd=0),
                              WaveStream(1, [parse_line(x) for x in sal.splitlines()], simd=0)])
    t = [r.t for r in res.waves[0].issues]
    assert t == [0, 16, 32, 48]


# ---------------------------------------------------------------------------------------------
# hazard view: the model waits what AMD documents (the judge's view), not the generator's

def test_model_uses_the_judges_hazard_view():
    from isa.hazards import required_wait_states
    cmp = "v_cmp_eq_u32 vcc, v0, v1"
    for use, gen, emu in (("v_cndmask_b32 v2, v3, v4, vcc", 2, 1),          # VCC as a mask
                          ("v_addc_co_u32 v2, vcc, v3, v4, vcc", 2, 0)):    # VCC as carry-in
        assert required_wait_states("gfx942", parse_line(cmp), parse_line(use), "gen") == gen
        assert required_wait_states("gfx942", parse_line(cmp), parse_line(use), "emu") == emu
        s = streams_from_asm([f"{cmp}\n{use}"])
        # producer at 0; the consumer after (wait states + 1) slots of 4 clk
        assert times(simulate("gfx942", s))[1] == 4 * (emu + 1)
        assert times(simulate("gfx942", s, hazard_view="gen"))[1] == 4 * (gen + 1)
    with pytest.raises(Exception, match="hazard view"):
        simulate("gfx942", streams_from_asm([cmp]), hazard_view="llvm")


# ---------------------------------------------------------------------------------------------
# power-limited clock (isa.cycle.power)

def test_clock_at_reference_activity_is_the_measured_clock():
    from isa.cycle.power import clock_at_activity
    for dev, mhz in (("MI300X", 1207), ("MI325X", 1447)):
        p = params_for("gfx942", dev)
        assert clock_at_activity(p, p.power_ref_activity) == pytest.approx(mhz)
    p = params_for("gfx942", "MI300X")
    # half the activity: 1207 x 2^(1/1.59) = 1866.7 MHz; a light load is capped at the peak
    assert clock_at_activity(p, 0.942 / 2) == pytest.approx(1207 * 2 ** (1 / 1.59))
    assert clock_at_activity(p, 0.2) == 2100 and clock_at_activity(p, 0.0) == 2100
    # more MFMA duty than the reference run: a lower clock
    assert clock_at_activity(p, 1.0) == pytest.approx(1207 * 0.942 ** (1 / 1.59))
    # the exponent reproduces the MI325X clock from MI300X's at 1000 / 750 W (same activity)
    assert 1207 * (1000 / 750) ** (1 / p.power_clock_exponent) == pytest.approx(1447, rel=0.002)
    with pytest.raises(Exception, match="activity"):
        clock_at_activity(p, 2.5)


def test_partial_last_round_runs_at_a_higher_clock():
    from isa.cycle.power import round_activities, sustained
    p = params_for("gfx942", "MI300X")
    c = 1000.0
    per_wg = 0.942 * 2048 * c                         # MFMA duty 0.942 over one round
    acts = round_activities(p, per_wg * 1024, 1024, c)
    assert acts == pytest.approx([0.942] * 3 + [0.942 * 112 / 304])   # 1024 - 3 x 304 = 112
    s = sustained(p, per_wg * 1024, 1024, c)
    # rounds 1-3 at 1207 MHz; the last at 1207 x (304/112)^(1/1.59) = 2262 -> the 2100 cap
    assert s["round_clocks_mhz"] == [1207.0] * 3 + [2100.0]
    assert s["seconds"] == pytest.approx(3 * c / 1207e6 + c / 2100e6)
    r = problem_tflops(p, per_wg * 1024, n_wg=1024, cycles_per_round=c)
    assert r["sustained"]["tflops"] == pytest.approx(per_wg * 1024 / s["seconds"] / 1e12)
    # a full grid (304 tiles, the MAF shape) runs every round at the reference clock
    assert sustained(p, per_wg * 304, 304, c)["round_clocks_mhz"] == [1207.0]
    # two co-resident workgroups per CU: the duty counts both
    assert round_activities(p, per_wg * 608 / 2, 608, c, wgs_per_cu=2) == pytest.approx([0.942])


def test_mfma_type_sets_the_rate_and_power_weight():
    from isa.cycle.power import mfma_load, round_activities
    bf = "v_mfma_f32_16x16x16_bf16 a[0:3], v[0:1], v[2:3], a[0:3]"
    f16 = "v_mfma_f32_16x16x16_f16 a[0:3], v[0:1], v[2:3], a[0:3]"
    fp8 = "v_mfma_f32_16x16x32_fp8_fp8 a[0:3], v[0:1], v[2:3], a[0:3]"
    # 4 SIMDs x 2*16*16*16 FLOP / 16 clk = 2048 FLOP/clk/CU; fp8 16x16x32 in 16 clk: 4096
    assert mfma_load("gfx942", streams_from_asm([bf])) == (2048.0, 1.0)
    assert mfma_load("gfx942", streams_from_asm([f16])) == (2048.0, 1.12)
    assert mfma_load("gfx942", streams_from_asm([fp8])) == (4096.0, 1.10)
    # the most frequent MFMA of the streams decides; no MFMA: None (bf16 rate, weight 1)
    assert mfma_load("gfx942", streams_from_asm([f"{fp8}\n{bf}\n{bf}"]))[0] == 2048.0
    assert mfma_load("gfx942", streams_from_asm(["s_nop 0"])) is None
    # MAF's fp8 run (1273 TF at 1230 MHz on MI300X) is 0.831 of fp8's peak: duty over fp8's own
    # rate, not bf16's (which would read 1.66 and saturate), times the fp8 weight
    p = params_for("gfx942", "MI300X")
    per_wg = 1273e12 / (304 * 1230e6)                 # FLOP per CU in one clk
    act = round_activities(p, per_wg * 304, 304, 1.0, mfma=(4096.0, 1.10))
    assert act == pytest.approx([1273 / 1531.6 * 1.10], rel=1e-3)
    # ...and the power model gives back MAF's measured fp8 clock (the weight's derivation, checked)
    from isa.cycle.power import clock_at_activity
    assert clock_at_activity(p, act[0]) == pytest.approx(1230, rel=0.01)

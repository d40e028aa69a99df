"""The Target and DType tables: built from the isa tables (not re-tabled), every issue-15 type a
row, MFMA forms per dtype pair per arch, and the scheduler reading its only latency table."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from asmgen.dtypes import DTYPES, dtype_of
from asmgen.errors import ConfigError
from asmgen.target import ARCHES, Target, target_of
from isa.cycle.params import params_for
from isa.mfma_shapes import MFMA_TABLE
from isa.tables import get_spec

G942, G950 = ARCHES


def test_arches_are_the_isa_tables():
    from isa.spec import ARCHES as isa_arches
    assert ARCHES == tuple(isa_arches)
    with pytest.raises(ConfigError, match="gfx90a"):
        Target("gfx90a")


def test_target_values_come_from_the_cycle_params():
    for arch in ARCHES:
        t, p = target_of(arch), params_for(arch)
        assert t.lds_limit == p.lds_bytes_cu
        assert t.bank_line_bytes == 4 * p.lds_banks
        assert t.regs_per_lane == p.vgprs_per_lane == t.vgpr_max + t.agpr_max
        assert t.latency.lds == p.lds_latency and t.latency.vmem == p.vmem_l2_latency
        assert t.latency.smem == p.smem_latency
        assert "MT4G" in t.latency.src["lds_latency"]
    assert target_of(G942).lds_limit == 65536 and target_of(G950).lds_limit == 163840
    assert target_of(G942).bank_line_bytes == 128 and target_of(G950).bank_line_bytes == 256


def test_target_identity_and_offsets():
    assert Target(G942) == target_of(G942) and hash(Target(G942)) == hash(target_of(G942))
    assert Target(G942) != Target(G950)
    assert target_of(target_of(G950)) is target_of(G950)
    t = target_of(G942)
    assert (t.ds_offset_max, t.mubuf_offset_max) == (65535, 4095)
    import pickle
    assert pickle.loads(pickle.dumps(t)) == t


def test_waves_per_simd():
    t = target_of(G942)
    assert t.waves_per_simd(1) == 8          # capped by 8 waves per SIMD
    assert t.waves_per_simd(64) == 8
    assert t.waves_per_simd(65) == 7         # 72 allocated: 512 // 72
    assert t.waves_per_simd(256) == 2
    assert t.waves_per_simd(512) == 1


def test_f16_shapes_native_first():
    assert target_of(G942).mfma_shapes("f16") == ((32, 32, 8), (16, 16, 16))
    assert target_of(G950).mfma_shapes("bf16") == ((32, 32, 16), (16, 16, 32), (32, 32, 8),
                                                    (16, 16, 16))
    assert target_of(G950).default_mfma("f16") == (32, 32, 16)


def test_mfma_forms_match_isa_rows_and_passes():
    for arch in ARCHES:
        t = target_of(arch)
        for d in DTYPES.values():
            for f in t.mfmas(d):
                row = MFMA_TABLE[f.name]
                assert arch in row.arches
                assert (f.m, f.n, f.k, f.a_regs, f.cd_regs) == (row.m, row.n, row.k, row.a_regs,
                                                                row.cd_regs)
                assert f.passes == get_spec(arch, f.name).passes_on(arch) > 0
                assert f.acc_type == d.acc


def test_low_precision_rows_per_arch():
    t942, t950 = target_of(G942), target_of(G950)
    # FNUZ fp8/bf8 on gfx942 only, OCP on gfx950 only; mixed pairs where an MFMA exists
    assert {f.name for f in t942.mfmas("fp8_e4m3fnuz", "bf8_e5m2fnuz")} == {
        "v_mfma_f32_32x32x16_fp8_bf8", "v_mfma_f32_16x16x32_fp8_bf8"}
    assert t950.mfmas("fp8_e4m3fnuz") == () and t942.mfmas("fp8_e4m3") == ()
    assert "v_mfma_f32_32x32x16_bf8_fp8" in {f.name for f in t950.mfmas("bf8_e5m2", "fp8_e4m3")}
    # i8 -> i32 on both, gfx950's double-rate forms first
    assert t950.mfmas("i8")[0].name == "v_mfma_i32_32x32x32_i8" and t950.mfmas("i8")[0].exclusive
    assert all(f.acc_type == "i32" for f in t942.mfmas("i8"))
    # MX types: only the f8f6f4 forms, each with its scaled variant
    mx = t950.mfmas("mxfp4")
    assert {f.name for f in mx} == {"v_mfma_f32_32x32x64_f8f6f4", "v_mfma_f32_16x16x128_f8f6f4"}
    assert all(f.scaled == f.name.replace("v_mfma_", "v_mfma_scale_") for f in mx)
    assert t942.mfmas("mxfp8") == ()
    assert set(t942.dtypes()) >= {"f16", "bf16", "fp8_e4m3fnuz", "bf8_e5m2fnuz", "i8"}
    assert set(t950.dtypes()) >= {"fp8_e4m3", "bf8_e5m2", "i8", "mxfp8", "mxfp4"}


def test_mfma_for_names_valid_shapes():
    with pytest.raises(ConfigError, match=r"32x32x16 is not available for f16 on gfx942 "
                                          r"\(valid: 32x32x8, 16x16x16\)"):
        target_of(G942).mfma_for((32, 32, 16), "f16")
    assert target_of(G950).mfma_for((32, 32, 16), "bf16").name == "v_mfma_f32_32x32x16_bf16"


def test_dtype_rows():
    f16, fp4 = dtype_of("f16"), dtype_of("mxfp4")
    assert (f16.bits, f16.bytes, f16.per_dword, f16.log2_bytes) == (16, 2, 2, 1)
    assert f16.np_type is np.float16 and dtype_of("bf16").np_type is ml_dtypes.bfloat16
    assert dtype_of("i8").is_int and not dtype_of("i8").is_float and dtype_of("i8").acc == "i32"
    assert fp4.per_dword == 8 and fp4.size * 2 == 1 and fp4.nbytes(64) == 32
    assert fp4.scale == "e8m0" and fp4.block == 32 and fp4.f8f6f4_code == 4
    with pytest.raises(ConfigError, match="not a whole number of bytes"):
        _ = fp4.bytes
    with pytest.raises(ConfigError, match="known:"):
        dtype_of("fp16")
    assert dtype_of("fp8_e4m3").np_type is ml_dtypes.float8_e4m3fn
    assert dtype_of("fp8_e4m3fnuz").np_type is ml_dtypes.float8_e4m3fnuz


@pytest.mark.parametrize("name", [n for n, d in DTYPES.items() if d.is_float])
def test_eps_is_half_ulp_at_one(name):
    d = DTYPES[name]
    # half the gap between 1.0 and the next representable value of the NumPy type
    one = np.asarray(1.0, dtype=d.np_type)
    nxt = np.nextafter(one.astype(np.float64), 2.0)
    ulp = float(ml_dtypes.finfo(d.np_type).eps) if d.np_type not in (np.float32, np.float16) \
        else float(np.finfo(d.np_type).eps)
    assert d.eps == ulp / 2, (name, d.eps, ulp, nxt)
    assert d.bits == np.dtype(d.np_type).itemsize * 8 or d.bits < 8


def test_scheduler_latencies_are_the_sourced_ones():
    from asmgen.passes.effects import effects
    from asmgen.sched.model import result_latency_of
    from isa.asm_parse import parse_line
    for arch in ARCHES:
        p, t = params_for(arch), target_of(arch)
        lat = {txt: result_latency_of(t, effects(t, parse_line(txt, arch))) for txt in (
            "ds_read_b128 v[0:3], v4", "s_load_dword s0, s[0:1], 0x0",
            "buffer_load_dword v0, v1, s[0:3], 0 offen")}
        assert list(lat.values()) == [p.lds_latency, p.smem_latency, p.vmem_l2_latency]


def test_the_kernel_ir_holds_its_target():
    from asmgen.ir import IRError, KernelIR
    from asmgen.kinds.gemm.tags import GEMM_TAGS
    k = KernelIR(target_of(G950), "t", tags=GEMM_TAGS)
    assert k.target is target_of(G950) and not hasattr(k, "arch")
    with pytest.raises(IRError, match="needs a Target.*'gfx950'"):
        KernelIR(G950, "t", tags=GEMM_TAGS)


def test_the_pass_queries_are_the_isa_tables():
    """What the passes ask the Target (specs, MFMA passes, hazard rules and waits) is the isa
    package's answer for the arch name."""
    from isa.asm_parse import parse_line
    from isa.hazards import required_wait_states, rules
    from isa.tables import spec_for
    mfma, use = "v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]", "v_accvgpr_read_b32 v4, a4"
    for arch in ARCHES:
        t = target_of(arch)
        p, c = parse_line(mfma, arch), parse_line(use, arch)
        assert t.spec_for(p) is spec_for(arch, p)
        assert t.spec_passes(t.spec_for(p)) == get_spec(arch, p.op).passes_on(arch) > 0
        assert t.hazard_rules() == rules(arch) and t.hazard_rules()
        for view in ("gen", "emu"):
            assert t.required_wait_states(p, c, view) == required_wait_states(arch, p, c, view) > 0
        r = t.hazard_rules()[0]
        assert t.hazard_wait(r, 16) == r.wait(arch, 16)

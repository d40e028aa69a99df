"""Vector ALU instruction specs of gfx942/gfx950: VOP1, VOP2, VOP3, VOPC, VOP3P (non-MFMA).

Operand kinds list the canonical kind first. VALU sources: src0 may be a VGPR, SGPR, inline constant,
literal or special register; other sources a VGPR, SGPR or inline constant (gfx9 VOP3 takes no
literal; at most one SGPR/literal per instruction: the constant-bus limit). Carry and compare
results (``vcc`` or an SGPR pair) are explicit operands in LLVM syntax, so they are not implicit
here. Transcendental ops (LLVM's TRANS class, cdna-facts section 3) take 16 cycles per wave64
(cdna-timing section 3). DPP/SDWA exist for VOP1/VOP2/VOPC with 32-bit operands (CDNA3 ISA guide,
"VOP_DPP"/"VOP_SDWA"). Forms verified with llvm-mc 22 (tests/isa/test_tables_llvm.py).
"""
from __future__ import annotations

from .spec import InstrSpec
from .spec_builders import BOTH, GFX950, dsrc, dst, expand, spec, src

S0 = "vsilx"    # VALU src0
S1 = "vsix"     # other VALU sources
V = "v"
CARRY = "xs"    # vcc or an SGPR pair (64-bit lane mask)

E64_MODS = ("clamp", "mul", "div", "neg", "abs", "op_sel")
DPP_MODS = ("quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_rol", "wave_shr", "wave_ror",
            "row_mirror", "row_half_mirror", "row_bcast", "row_mask", "bank_mask", "bound_ctrl")
SDWA_MODS = ("dst_sel", "dst_unused", "src0_sel", "src1_sel", "sext")
PK_MODS = ("op_sel", "op_sel_hi", "neg_lo", "neg_hi", "clamp")

TRANS = frozenset({"v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rcp_iflag_f32", "v_rsq_f32", "v_sqrt_f32",
                   "v_sin_f32", "v_cos_f32", "v_exp_f16", "v_log_f16", "v_rcp_f16", "v_rsq_f16",
                   "v_sqrt_f16", "v_sin_f16", "v_cos_f16", "v_rcp_f64", "v_rsq_f64", "v_sqrt_f64",
                   "v_exp_legacy_f32", "v_log_legacy_f32"})


def _valu(name: str, fmt: str, ops, *, archs=BOTH, flags=(), mods=(), reads=(), writes=(),
          wide: bool = False) -> InstrSpec:
    fl = set(flags)
    if fmt in ("VOP1", "VOP2", "VOPC") and not wide:
        fl |= {"dpp_ok", "sdwa_ok"}
        mods = tuple(mods) + DPP_MODS + SDWA_MODS
    if fmt != "VOP3P":
        mods = tuple(mods) + E64_MODS
    trans = name in TRANS
    if trans:
        fl.add("trans")
    return spec(name, fmt, ops, "trans" if trans else "valu", archs=archs, flags=fl, mods=mods,
                implicit_reads=reads, implicit_writes=writes, cycles=16 if trans else 4)


def _vop1(name: str, dw: int = 1, sw: int = 1, *, archs=BOTH, dkind: str = V, skind: str = S0,
          flags=()) -> InstrSpec:
    return _valu(name, "VOP1", [dst("vdst", dkind, dw), src("src0", skind, sw)], archs=archs,
                 flags=flags, wide=dw > 1 or sw > 1)


def _vop2(name: str, w: int = 1, *, fmt: str = "VOP2", archs=BOTH, w0: int | None = None,
          w1: int | None = None, k0: str = S0, k1: str = S1) -> InstrSpec:
    w0 = w if w0 is None else w0
    w1 = w if w1 is None else w1
    return _valu(name, fmt, [dst("vdst", V, w), src("src0", k0 if fmt == "VOP2" else S1, w0),
                             src("src1", k1, w1)], archs=archs, wide=w > 1 or w0 > 1 or w1 > 1)


def _vop3(name: str, w: int = 1, n_src: int = 3, *, archs=BOTH, flags=(), reads=()) -> InstrSpec:
    ops = [dst("vdst", V, w)] + [src(f"src{i}", S1, w) for i in range(n_src)]
    return _valu(name, "VOP3", ops, archs=archs, flags=flags, reads=reads, wide=True)


def _vop1_all() -> list[InstrSpec]:
    out = [_vop1(n) for n in (
        "v_mov_b32", "v_not_b32", "v_bfrev_b32", "v_ffbh_u32", "v_ffbl_b32", "v_ffbh_i32",
        "v_cvt_f32_f16", "v_cvt_f16_f32", "v_cvt_f32_u32", "v_cvt_f32_i32", "v_cvt_u32_f32",
        "v_cvt_i32_f32", "v_cvt_f32_ubyte0", "v_cvt_f32_ubyte1", "v_cvt_f32_ubyte2", "v_cvt_f32_ubyte3",
        "v_cvt_rpi_i32_f32", "v_cvt_flr_i32_f32", "v_cvt_f16_u16", "v_cvt_f16_i16", "v_cvt_u16_f16",
        "v_cvt_i16_f16", "v_fract_f32", "v_trunc_f32", "v_ceil_f32", "v_floor_f32", "v_rndne_f32",
        "v_frexp_mant_f32", "v_frexp_exp_i32_f32", "v_fract_f16", "v_trunc_f16", "v_ceil_f16",
        "v_floor_f16", "v_rndne_f16", "v_cvt_f32_fp8", "v_cvt_f32_bf8", "v_sat_pk_u8_i16",
        "v_cvt_norm_i16_f16", "v_cvt_norm_u16_f16", "v_cvt_off_f32_i4", "v_frexp_mant_f16",
        "v_frexp_exp_i16_f16",
        *sorted(TRANS - {"v_rcp_f64", "v_rsq_f64", "v_sqrt_f64"}))]
    out += [_vop1(n, 2, 2) for n in ("v_mov_b64", "v_rcp_f64", "v_rsq_f64", "v_sqrt_f64", "v_fract_f64",
                                     "v_trunc_f64", "v_ceil_f64", "v_floor_f64", "v_rndne_f64")]
    out += [_vop1("v_cvt_f64_f32", 2, 1), _vop1("v_cvt_f64_i32", 2, 1), _vop1("v_cvt_f64_u32", 2, 1),
            _vop1("v_cvt_f32_f64", 1, 2), _vop1("v_frexp_exp_i32_f64", 1, 2), _vop1("v_frexp_mant_f64", 2, 2), _vop1("v_cvt_i32_f64", 1, 2), _vop1("v_cvt_u32_f64", 1, 2),
            _vop1("v_cvt_pk_f32_fp8", 2, 1), _vop1("v_cvt_pk_f32_bf8", 2, 1),
            _vop1("v_accvgpr_mov_b32", dkind="a", skind="a"),
            _vop1("v_cvt_f32_bf16", archs=GFX950), _vop1("v_prng_b32", archs=GFX950),
            _valu("v_readfirstlane_b32", "VOP1", [dst("sdst", "s"), src("src0", "v")], flags=("readlane",),
                  wide=True),
            _valu("v_swap_b32", "VOP1", [dsrc("vdst", V), dsrc("src0", V)], wide=True),
            _valu("v_nop", "VOP1", [], wide=True), _valu("v_clrexcp", "VOP1", [], wide=True)]
    # gfx950: swap lanes 16..31 <-> 32..47 style permutes between two VGPRs (both written)
    out += [_valu(n, "VOP1", [dsrc("vdst", V), dsrc("src0", V)], archs=GFX950, wide=True,
                  mods=("bound_ctrl", "fi"))
            for n in ("v_permlane16_swap_b32", "v_permlane32_swap_b32")]
    return out


def _vop2_all() -> list[InstrSpec]:
    names = ("v_add_u32", "v_sub_u32", "v_subrev_u32", "v_add_f32", "v_sub_f32", "v_subrev_f32",
             "v_mul_f32", "v_mul_u32_u24", "v_mul_i32_i24", "v_mul_hi_u32_u24",
             "v_mul_hi_i32_i24", "v_min_i32", "v_max_i32", "v_min_u32", "v_max_u32", "v_min_f32",
             "v_max_f32", "v_min_f16", "v_max_f16", "v_min_i16", "v_max_i16", "v_min_u16", "v_max_u16",
             "v_lshlrev_b32", "v_lshrrev_b32", "v_ashrrev_i32", "v_and_b32", "v_or_b32", "v_xor_b32",
             "v_add_f16", "v_sub_f16", "v_subrev_f16", "v_mul_f16", "v_ldexp_f16", "v_add_u16",
             "v_sub_u16", "v_subrev_u16", "v_mul_lo_u16", "v_lshlrev_b16", "v_lshrrev_b16",
             "v_ashrrev_i16", "v_xnor_b32")
    out = [_vop2(n) for n in names]
    # VOP2 with an inline 32-bit constant K in the instruction (a literal operand)
    out += [_valu("v_fmamk_f32", "VOP2", [dst("vdst", V), src("src0", S0), src("k", "l"), src("src1", V)],
                  wide=True),
            _valu("v_fmaak_f32", "VOP2", [dst("vdst", V), src("src0", S0), src("src1", V), src("k", "l")],
                  wide=True)]
    out += [_valu("v_fmac_f32", "VOP2", [dsrc("vdst", V), src("src0", S0), src("src1", S1)]),
            _valu("v_fmac_f64", "VOP2", [dsrc("vdst", V, 2), src("src0", S0, 2), src("src1", S1, 2)],
                  wide=True),
            _valu("v_cndmask_b32", "VOP2", [dst("vdst", V), src("src0", S0), src("src1", S1),
                                            src("src2", CARRY, 2)])]
    for n in ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32"):
        out.append(_valu(n, "VOP2", [dst("vdst", V), dst("sdst", CARRY, 2), src("src0", S0),
                                     src("src1", S1)]))
    for n in ("v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32"):
        out.append(_valu(n, "VOP2", [dst("vdst", V), dst("sdst", CARRY, 2), src("src0", S0),
                                     src("src1", S1), src("src2", CARRY, 2)]))
    # VOP2 opcodes that exist only in the VOP3 encoding on gfx9
    out += [_vop2(n, fmt="VOP3") for n in (
        "v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32", "v_bcnt_u32_b32", "v_ldexp_f32", "v_bfm_b32",
        "v_cvt_pkrtz_f16_f32", "v_cvt_pknorm_i16_f32", "v_cvt_pknorm_u16_f32", "v_cvt_pk_u16_u32",
        "v_cvt_pk_i16_i32", "v_mul_lo_u32", "v_mul_hi_u32", "v_mul_hi_i32", "v_pack_b32_f16",
        "v_mul_legacy_f32", "v_add_i32", "v_sub_i32", "v_add_i16", "v_sub_i16")]
    out.append(_valu("v_trig_preop_f64", "VOP3", [dst("vdst", V, 2), src("src0", S1, 2), src("src1", S1)],
                     wide=True))
    out += [_vop2("v_cvt_pk_bf16_f32", fmt="VOP3", archs=GFX950),
            _vop2("v_cvt_pk_f16_f32", fmt="VOP3", archs=GFX950)]
    for n in ("v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64"):
        out.append(_vop2(n, 2, fmt="VOP3", w0=1))
    for n in ("v_add_f64", "v_mul_f64", "v_min_f64", "v_max_f64"):
        out.append(_vop2(n, 2, fmt="VOP3"))
    out.append(_vop2("v_ldexp_f64", 2, fmt="VOP3", w1=1))
    # fp8/bf8 packing: op_sel[3] picks which half of vdst is written (partial write, cdna-facts 3)
    for n in ("v_cvt_pk_fp8_f32", "v_cvt_pk_bf8_f32", "v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32"):
        out.append(_valu(n, "VOP3", [dsrc("vdst", V), src("src0", S1), src("src1", S1)],
                         flags=("partial_dst",), wide=True))
    # lane ops (flag readlane: lane-select hazards, cdna-facts section 3)
    out += [_valu("v_readlane_b32", "VOP3", [dst("sdst", "s"), src("src0", "v"), src("src1", "si")],
                  flags=("readlane",), wide=True),
            _valu("v_writelane_b32", "VOP3", [dsrc("vdst", V), src("src0", "six"), src("src1", "is")],
                  flags=("readlane",), wide=True)]
    return out


def _vop3_all() -> list[InstrSpec]:
    out = [_vop3(n) for n in (
        "v_add3_u32", "v_lshl_add_u32", "v_add_lshl_u32", "v_lshl_or_b32", "v_and_or_b32", "v_or3_b32",
        "v_xad_u32", "v_mad_u32_u24", "v_mad_i32_i24", "v_bfe_u32", "v_bfe_i32", "v_bfi_b32",
        "v_alignbit_b32", "v_alignbyte_b32", "v_perm_b32", "v_min3_f32", "v_max3_f32", "v_med3_f32",
        "v_min3_i32", "v_max3_i32", "v_med3_i32", "v_min3_u32", "v_max3_u32", "v_med3_u32",
        "v_fma_f32", "v_fma_f16", "v_div_fixup_f32", "v_sad_u32", "v_mad_u32_u16",
        "v_mad_i32_i16", "v_fma_legacy_f16", "v_max3_f16", "v_min3_f16", "v_med3_f16", "v_med3_i16",
        "v_med3_u16", "v_min3_i16", "v_max3_i16", "v_min3_u16", "v_max3_u16", "v_mad_legacy_u16",
        "v_mad_legacy_i16", "v_mad_legacy_f16", "v_mad_u16", "v_mad_i16", "v_div_fixup_f16", "v_cvt_pk_u8_f32",
        "v_msad_u8", "v_sad_u8", "v_sad_hi_u8", "v_sad_u16", "v_cubeid_f32", "v_cubesc_f32",
        "v_cubetc_f32", "v_cubema_f32")]
    out.append(_valu("v_lshl_add_u64", "VOP3", [dst("vdst", V, 2), src("src0", S1, 2), src("src1", S1),
                                                 src("src2", S1, 2)], wide=True))
    out += [_vop3("v_fma_f64", 2), _vop3("v_div_fixup_f64", 2),
            _vop3("v_div_fmas_f32", reads=("vcc",)), _vop3("v_div_fmas_f64", 2, reads=("vcc",))]
    out += [_valu("v_div_scale_f32", "VOP3", [dst("vdst", V), dst("sdst", CARRY, 2)] +
                  [src(f"src{i}", S1) for i in range(3)], wide=True),
            _valu("v_div_scale_f64", "VOP3", [dst("vdst", V, 2), dst("sdst", CARRY, 2)] +
                  [src(f"src{i}", S1, 2) for i in range(3)], wide=True)]
    for n in ("v_mad_u64_u32", "v_mad_i64_i32"):
        out.append(_valu(n, "VOP3", [dst("vdst", V, 2), dst("sdst", "sx", 2), src("src0", S1),
                                     src("src1", S1), src("src2", S1, 2)], wide=True))
    out += [_vop3(n, archs=GFX950) for n in ("v_minimum3_f32", "v_maximum3_f32", "v_bitop3_b32")]
    return out


def _vop3p_all() -> list[InstrSpec]:
    def pk(name: str, n_src: int, w: int = 1, archs=BOTH) -> InstrSpec:
        # flag "dot": LLVM's DOT class, with its own hazards (isa.hazards, measured with llc 22)
        flags = ("packed", "dot") if name.startswith("v_dot") else ("packed",)
        return _valu(name, "VOP3P", [dst("vdst", V, w)] + [src(f"src{i}", "vsi", w) for i in range(n_src)],
                     archs=archs, flags=flags, mods=PK_MODS)
    out = [pk(n, 3) for n in ("v_pk_fma_f16", "v_pk_mad_i16", "v_pk_mad_u16", "v_dot2_f32_f16",
                              "v_dot2_i32_i16", "v_dot2_u32_u16", "v_dot4_i32_i8", "v_dot4_u32_u8",
                              "v_dot8_i32_i4", "v_dot8_u32_u4")]
    out += [pk(n, 2) for n in ("v_pk_mul_f16", "v_pk_add_f16", "v_pk_max_f16", "v_pk_min_f16",
                               "v_pk_add_u16", "v_pk_sub_u16", "v_pk_add_i16", "v_pk_sub_i16",
                               "v_pk_mul_lo_u16", "v_pk_lshlrev_b16", "v_pk_lshrrev_b16",
                               "v_pk_ashrrev_i16", "v_pk_max_i16", "v_pk_min_i16", "v_pk_max_u16",
                               "v_pk_min_u16")]
    out += [pk("v_pk_fma_f32", 3, 2), pk("v_pk_mul_f32", 2, 2), pk("v_pk_add_f32", 2, 2),
            pk("v_pk_mov_b32", 2, 2), pk("v_dot2_f32_bf16", 3, archs=GFX950)]
    # AccVGPR moves (VOP3P-encoded on gfx90a+)
    out += [_valu("v_accvgpr_read_b32", "VOP3P", [dst("vdst", "v"), src("src0", "a")]),
            _valu("v_accvgpr_write_b32", "VOP3P", [dst("vdst", "a"), src("src0", "vi")])]
    return out


def _vopc_all() -> list[InstrSpec]:
    out = []
    int_conds = ("f", "lt", "eq", "le", "gt", "ne", "ge", "t")
    fp_conds = ("f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq",
                "nlt", "tru")
    names = [(n, 1) for n in expand("{c}_{t}", c=int_conds, t=("i16", "u16", "i32", "u32"))]
    names += [(n, 2) for n in expand("{c}_{t}", c=int_conds, t=("i64", "u64"))]
    names += [(n, 1) for n in expand("{c}_{t}", c=fp_conds, t=("f16", "f32"))]
    names += [(n, 2) for n in expand("{c}_f64", c=fp_conds)]
    names += [("class_f16", 1), ("class_f32", 1), ("class_f64", 2)]
    for body, w in names:
        w1 = 1 if body.startswith("class") else w
        for x in ("", "x"):
            # v_cmpx_* writes the mask to sdst and to EXEC on gfx9 (CDNA3 ISA guide, VOPC)
            out.append(_valu(f"v_cmp{x}_{body}", "VOPC",
                             [dst("sdst", CARRY, 2), src("src0", S0, w), src("src1", S1, w1)],
                             writes=("exec",) if x else (), flags=("writes_exec",) if x else (),
                             wide=w > 1))
    return out


def vector_specs() -> list[InstrSpec]:
    return _vop1_all() + _vop2_all() + _vop3_all() + _vop3p_all() + _vopc_all()


"""Scalar instruction specs of gfx942/gfx950: SOP1, SOP2, SOPK, SOPC, SOPP and SMEM.

Operand kinds list the canonical kind first (``isa.tables.canonical_instr`` picks it). SCC reads
and writes follow the AMD CDNA3 ISA guide, chapter 5 (scalar ALU): arithmetic with carry/overflow,
shifts, logic ops, compares, bfe, min/max, abs, bcnt write SCC; s_cselect, s_cmov*, s_addc/s_subb and
conditional branches read it. Every form here was assembled with llvm-mc 22 for both arches.
"""
from __future__ import annotations

from .spec import InstrSpec
from .spec_builders import dsrc, dst, expand, spec, src

SSRC = "silx"    # SALU source: SGPR, inline constant, 32-bit literal, special register
SDST = "sx"      # SALU destination: SGPR or special register (vcc, exec, m0)


def _sop1(name: str, dw: int = 1, sw: int = 1, *, reads=(), writes=("scc",), flags=(),
          has_dst: bool = True, has_src: bool = True, pipe: str = "salu") -> InstrSpec:
    ops = ([dst("sdst", SDST, dw)] if has_dst else []) + ([src("ssrc0", SSRC, sw)] if has_src else [])
    return spec(name, "SOP1", ops, pipe, implicit_reads=reads, implicit_writes=writes, flags=flags)


def _sop2(name: str, dw: int = 1, w0: int = 1, w1: int = 1, *, reads=(), writes=("scc",)) -> InstrSpec:
    return spec(name, "SOP2", [dst("sdst", SDST, dw), src("ssrc0", SSRC, w0), src("ssrc1", SSRC, w1)],
                "salu", implicit_reads=reads, implicit_writes=writes)


def _sopc(name: str, w0: int = 1, w1: int = 1) -> InstrSpec:
    return spec(name, "SOPC", [src("ssrc0", SSRC, w0), src("ssrc1", SSRC, w1)], "salu",
                implicit_writes=("scc",))


def _sopp(name: str, operand: str | None = "simm16", *, pipe: str = "salu", flags=(), reads=(),
          kinds: str = "i") -> InstrSpec:
    ops = [src(operand, kinds)] if operand else []
    return spec(name, "SOPP", ops, pipe, flags=flags, implicit_reads=reads)


def _scalar_alu() -> list[InstrSpec]:
    out: list[InstrSpec] = []
    # SOP1, 32-bit: (name, writes scc, reads scc)
    for name, wscc, rscc in (("s_mov_b32", 0, 0), ("s_not_b32", 1, 0), ("s_abs_i32", 1, 0),
                             ("s_ff1_i32_b32", 0, 0), ("s_ff0_i32_b32", 0, 0), ("s_flbit_i32_b32", 0, 0),
                             ("s_flbit_i32", 0, 0), ("s_bcnt1_i32_b32", 1, 0), ("s_bcnt0_i32_b32", 1, 0),
                             ("s_sext_i32_i8", 0, 0), ("s_sext_i32_i16", 0, 0), ("s_brev_b32", 0, 0),
                             ("s_cmov_b32", 0, 1)):
        out.append(_sop1(name, reads=("scc",) if rscc else (), writes=("scc",) if wscc else ()))
    # SOP1 with a 64-bit source and 32-bit result
    for name, wscc in (("s_ff1_i32_b64", 0), ("s_flbit_i32_b64", 0), ("s_bcnt1_i32_b64", 1)):
        out.append(_sop1(name, 1, 2, writes=("scc",) if wscc else ()))
    out += [_sop1("s_mov_b64", 2, 2, writes=()), _sop1("s_not_b64", 2, 2),
            _sop1("s_brev_b64", 2, 2, writes=()),
            _sop1("s_cmov_b64", 2, 2, reads=("scc",), writes=()),
            _sop1("s_getpc_b64", 2, has_src=False, writes=()),
            _sop1("s_setpc_b64", 1, 2, has_dst=False, writes=(), flags=("branch",), pipe="branch"),
            _sop1("s_swappc_b64", 2, 2, writes=(), flags=("branch",), pipe="branch")]
    # M0-relative SGPR moves (CDNA3 ISA SOP1: S_MOVRELS D = SGPR[addr(S0) + M0], S_MOVRELD
    # SGPR[addr(D) + M0] = S0): M0 is read, so Table 11 case 17 (SALU writes M0 -> S_MOVREL: 1)
    # applies; the SGPR actually moved is known at run time only (isa.emu.salu_extra)
    for n in (1, 2):
        for name in (f"s_movrels_b{32 * n}", f"s_movreld_b{32 * n}"):
            out.append(spec(name, "SOP1", [dst("sdst", "s", n), src("ssrc0", "s", n)], "salu",
                            implicit_reads=("m0",)))
    # SOP1 exec-mask ops: sdst = old exec, exec = f(ssrc0, exec); SCC = (exec != 0). ISA guide 5.x
    for name in expand("s_{op}_saveexec_b64", op=("and", "or", "xor", "andn2", "orn2", "nand", "nor",
                                                  "xnor")):
        out.append(spec(name, "SOP1", [dst("sdst", SDST, 2), src("ssrc0", SSRC, 2)], "salu",
                        implicit_reads=("exec",), implicit_writes=("exec", "scc"), flags=("writes_exec",)))
    # SOP2, 32-bit
    for name in ("s_add_u32", "s_sub_u32", "s_add_i32", "s_sub_i32", "s_lshl_b32", "s_lshr_b32",
                 "s_ashr_i32", "s_bfe_u32", "s_bfe_i32", "s_min_i32", "s_min_u32", "s_max_i32",
                 "s_max_u32", "s_absdiff_i32", "s_lshl1_add_u32", "s_lshl2_add_u32",
                 "s_lshl3_add_u32", "s_lshl4_add_u32",
                 *expand("s_{op}_b32", op=("and", "or", "xor", "andn2", "orn2", "nand", "nor", "xnor"))):
        out.append(_sop2(name))
    for name in ("s_mul_i32", "s_mul_hi_u32", "s_mul_hi_i32", "s_bfm_b32", "s_pack_ll_b32_b16",
                 "s_pack_lh_b32_b16", "s_pack_hh_b32_b16"):
        out.append(_sop2(name, writes=()))
    out += [_sop2("s_addc_u32", reads=("scc",)), _sop2("s_subb_u32", reads=("scc",)),
            _sop2("s_cselect_b32", reads=("scc",), writes=()),
            _sop2("s_cselect_b64", 2, 2, 2, reads=("scc",), writes=()),
            _sop2("s_bfm_b64", 2, 1, 1, writes=()), _sop2("s_bfe_u64", 2, 2, 1),
            _sop2("s_bfe_i64", 2, 2, 1)]
    for name in ("s_lshl_b64", "s_lshr_b64", "s_ashr_i64"):
        out.append(_sop2(name, 2, 2, 1))
    for name in expand("s_{op}_b64", op=("and", "or", "xor", "andn2", "orn2", "nand", "nor", "xnor")):
        out.append(_sop2(name, 2, 2, 2))
    # SOPK: 16-bit immediate in the instruction word
    imm = src("simm16", "il")
    out += [spec("s_movk_i32", "SOPK", [dst("sdst", SDST), imm], "salu"),
            spec("s_cmovk_i32", "SOPK", [dst("sdst", SDST), imm], "salu", implicit_reads=("scc",)),
            spec("s_addk_i32", "SOPK", [dsrc("sdst", "s"), imm], "salu", implicit_writes=("scc",)),
            spec("s_mulk_i32", "SOPK", [dsrc("sdst", "s"), imm], "salu"),
            # hwreg(...) is an Imm holding the simm16 (id | offset << 6 | (size-1) << 11)
            spec("s_getreg_b32", "SOPK", [dst("sdst", "s"), src("hwreg", "i")], "salu"),
            spec("s_setreg_b32", "SOPK", [src("hwreg", "i"), src("sdst", "s")], "salu")]
    for name in expand("s_cmpk_{c}_{t}", c=("eq", "lg", "gt", "ge", "lt", "le"), t=("i32", "u32")):
        out.append(spec(name, "SOPK", [src("sdst", "s"), imm], "salu", implicit_writes=("scc",)))
    # SOPC
    for name in expand("s_cmp_{c}_{t}", c=("eq", "lg", "gt", "ge", "lt", "le"), t=("i32", "u32")):
        out.append(_sopc(name))
    out += [_sopc("s_cmp_eq_u64", 2, 2), _sopc("s_cmp_lg_u64", 2, 2), _sopc("s_bitcmp0_b32"),
            _sopc("s_bitcmp1_b32"), _sopc("s_bitcmp0_b64", 2, 1), _sopc("s_bitcmp1_b64", 2, 1)]
    return out


def _sopp_all() -> list[InstrSpec]:
    out = [_sopp("s_nop", flags=("nop",)), _sopp("s_endpgm", None, flags=("endpgm",), pipe="branch"),
           # s_waitcnt's one operand is the simm16 (isa.waitcnt_enc encodes/decodes/prints it)
           _sopp("s_waitcnt", flags=("waitcnt",)),
           _sopp("s_barrier", None, flags=("barrier",)), _sopp("s_setprio", flags=("setprio",)),
           _sopp("s_sleep"), _sopp("s_sethalt"), _sopp("s_trap", pipe="branch"),
           _sopp("s_icache_inv", None), _sopp("s_setkill"), _sopp("s_wakeup", None),
           _sopp("s_ttracedata", None), _sopp("s_branch", "label", pipe="branch", flags=("branch",),
                                                kinds="bi")]
    for cond, reg in (("scc0", "scc"), ("scc1", "scc"), ("vccz", "vcc"), ("vccnz", "vcc"),
                      ("execz", "exec"), ("execnz", "exec")):
        out.append(_sopp("s_cbranch_" + cond, "label", pipe="branch", flags=("branch",), reads=(reg,),
                         kinds="bi"))
    return out


def _smem() -> list[InstrSpec]:
    """SMEM loads: lgkmcnt (cdna-facts section 4); offset operand is an SGPR or a 21-bit signed
    immediate (section 5); ``glc`` is the only cache bit llvm-mc accepts on SMEM for gfx942."""
    out = []
    for base, bw in (("s_load_dword", 2), ("s_buffer_load_dword", 4)):
        for suffix, n in (("", 1), ("x2", 2), ("x4", 4), ("x8", 8), ("x16", 16)):
            out.append(spec(base + suffix, "SMEM", [dst("sdst", "s", n), src("sbase", "s", bw),
                                                    src("soffset", "is")],
                            "smem", counter="lgkm", flags=("smem", "load"), mods=("offset", "glc"),
                            mem_bytes=4 * n))
    out += [spec("s_dcache_wb", "SMEM", [], "smem", counter="lgkm", flags=("smem",)),
            spec("s_memtime", "SMEM", [dst("sdst", "s", 2)], "smem", counter="lgkm", flags=("smem",)),
            spec("s_memrealtime", "SMEM", [dst("sdst", "s", 2)], "smem", counter="lgkm", flags=("smem",))]
    return out


def scalar_specs() -> list[InstrSpec]:
    """Every scalar spec; all exist on both gfx942 and gfx950."""
    return _scalar_alu() + _sopp_all() + _smem()


"""Software-visible hazards of gfx942/gfx950 as data, and the wait states a pair of instructions needs.

Each ``HazardRule`` names a producer class and the locations it produces, a consumer class and the
operand slot it consumes through, the relation between the two register sets and the wait states
as a formula of the producer's MFMA passes and the arch (``Wait``). ``required_wait_states(arch,
producer, consumer)`` is the max over matching rules for two instructions with nothing between
them; every instruction between them (``s_nop N`` counts N+1) reduces it. The asmgen hazard pass and
the emulator both read these rules; no other hazard list exists.

Sources: cdna-facts section 3 (the table there, from LLVM's GCNHazardRecognizer.cpp), each row
re-checked against ``llc -run-pass post-RA-hazard-rec`` in tests/isa/test_hazards_llc.py. Where the
facts table was not precise (MFMA -> SrcC across XDL/non-XDL, 2-pass cases) the rule follows what
LLVM 22's recognizer does, as measured by that test.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from .access import Access, Loc, accesses
from .instr import Instr
from .operands import Imm
from .spec import InstrSpec
from .tables import spec_for

MEM_FORMATS = ("MUBUF", "MTBUF", "GLOBAL", "FLAT", "SCRATCH")


@dataclass(frozen=True, slots=True)
class Wait:
    """Wait states = per_pass * P + base (+ arch_add[arch]); ``overrides`` (arch, P, n) replace the
    formula for one pass count on one arch (LLVM's 2-pass and DGEMM special cases)."""

    base: int
    per_pass: int = 0
    arch_add: tuple[tuple[str, int], ...] = ()
    overrides: tuple[tuple[str, int, int], ...] = ()

    def __call__(self, arch: str, passes: int) -> int:
        for a, p, n in self.overrides:
            if a == arch and p == passes:
                return n
        return self.per_pass * passes + self.base + dict(self.arch_add).get(arch, 0)

    def __str__(self) -> str:
        text = (f"P{self.base:+d}" if self.base else "P") if self.per_pass else str(self.base)
        for a, n in self.arch_add:
            text += f" ({a}: {n:+d})"
        for a, p, n in self.overrides:
            text += f" ({a} {p}-pass: {n})"
        return text


def const(n: int) -> Wait:
    return Wait(n)


def by_passes(**table: tuple[int, int]) -> Wait:
    """A wait that is a table: ``by_passes(p16=(11, 19), p4=(6, 6))`` = (gfx942, gfx950) per pass count."""
    return Wait(0, 0, (), tuple((arch, int(k[1:]), vals[i]) for k, vals in table.items()
                                for i, arch in enumerate(("gfx942", "gfx950"))))


BOTH_2P = lambda n: (("gfx942", 2, n), ("gfx950", 2, n))


@dataclass(frozen=True, slots=True)
class HazardRule:
    """One hazard: producer class + produced locations, consumer class + consumed slot, relation, wait."""

    name: str
    producer: str     # key of PRODUCERS
    produced: str     # key of PRODUCED
    consumer: str     # key of CONSUMERS
    consumed: str     # key of CONSUMED
    relation: str     # "overlap" | "same" | "overlap_not_same" | "always" | "same_hwreg"
    wait: Wait
    source: str = "cdna-facts 3"
    archs: tuple[str, ...] = ("gfx942", "gfx950")
    same_op: bool | None = None  # True/False: only when the consumer has / lacks the producer's mnemonic


# ---- instruction classes (predicates on the spec and the instance) -------------------------------
def _is_valu(s: InstrSpec, i: Instr) -> bool:
    return s.pipe in ("valu", "trans") and not s.has("mfma")


FP8_BYTE_SEL = ("v_cvt_sr_fp8_f32", "v_cvt_sr_bf8_f32")


def _partial_dst(s: InstrSpec, i: Instr) -> bool:
    """VALU whose dst is forwarded partially (cdna-facts 3; LLVM getDstSelForwardingOperand): SDWA with
    dst_sel other than DWORD; VOP3 with op_sel's dst bit (the element after the sources); the fp8/bf8
    byte-select converts with op_sel[3:2] != 0. Writes of the low half (op_sel dst bit 0) do not count."""
    if not _is_valu(s, i):
        return False
    if i.encoding == "sdwa" or i.has("dst_sel"):
        return i.mod("dst_sel", "DWORD") != "DWORD"
    op_sel = i.mod("op_sel")
    if not isinstance(op_sel, tuple):
        return False
    if s.name in FP8_BYTE_SEL:
        return any(op_sel[2:4])
    n_src = sum(1 for o in s.operands if o.name.startswith("src"))
    return s.fmt == "VOP3" and len(op_sel) == n_src + 1 and bool(op_sel[-1])


def _is_dpp(s: InstrSpec, i: Instr) -> bool:
    return _is_valu(s, i) and (i.encoding == "dpp" or any(i.has(m) for m in ("quad_perm", "row_shl", "row_shr",
                                                                           "row_ror", "row_bcast",
                                                                           "row_mirror", "row_half_mirror",
                                                                           "wave_shl", "wave_shr",
                                                                           "wave_rol", "wave_ror")))


def _wide_store(s: InstrSpec, i: Instr) -> bool:
    """VMEM store/atomic with >64-bit data; a MUBUF one only if soffset is not an SGPR (cdna-facts 3)."""
    if s.fmt not in MEM_FORMATS or not (s.has("store") or s.has("atomic")):
        return False
    data = [op for o, op in zip(s.operands, i.operands) if o.name == "vdata"]
    if not data or getattr(data[0], "count", 1) <= 2:
        return False
    if s.fmt == "MUBUF":
        soff = [op for o, op in zip(s.operands, i.operands) if o.name == "soffset"]
        return not (soff and getattr(soff[0], "file", None) == "s")
    return True


PRODUCERS: dict[str, Callable[[InstrSpec, Instr], bool]] = {
    "xdl": lambda s, i: s.has("mfma") and s.has("xdl"),
    "nonxdl_mfma": lambda s, i: s.has("mfma") and not s.has("xdl") and not s.has("dgemm"),
    "dgemm": lambda s, i: s.has("dgemm"),
    "mfma": lambda s, i: s.has("mfma"),
    "valu": _is_valu,
    "valu_nondot": lambda s, i: _is_valu(s, i) and not s.has("dot"),
    "dot": lambda s, i: s.has("dot"),
    "trans": lambda s, i: s.has("trans"),
    "valu_partial_dst": _partial_dst,
    "salu": lambda s, i: s.fmt in ("SOP1", "SOP2", "SOPK", "SOPC"),
    "setreg": lambda s, i: s.name == "s_setreg_b32",
    "vmem_wide_store": _wide_store,
}

CONSUMERS: dict[str, Callable[[InstrSpec, Instr], bool]] = {
    "xdl": PRODUCERS["xdl"],
    "nonxdl_mfma": lambda s, i: s.has("mfma") and not s.has("xdl"),
    "dgemm": PRODUCERS["dgemm"],
    "mfma": PRODUCERS["mfma"],
    "valu": _is_valu,
    "valu_nontrans": lambda s, i: _is_valu(s, i) and not s.has("trans"),
    "vmem_ds": lambda s, i: s.fmt in MEM_FORMATS + ("DS",),
    "vmem": lambda s, i: s.fmt in MEM_FORMATS,
    "lane_rw": lambda s, i: s.name in ("v_readlane_b32", "v_writelane_b32"),
    "lane_read": lambda s, i: s.name in ("v_readlane_b32", "v_readfirstlane_b32"),
    "m0_lds": lambda s, i: "m0" in s.implicit_reads and s.has("lds"),
    "getreg_setreg": lambda s, i: s.name in ("s_getreg_b32", "s_setreg_b32"),
    "dpp": _is_dpp,
    "div_fmas": lambda s, i: s.name.startswith("v_div_fmas"),
    "permlane_swap": lambda s, i: s.name in ("v_permlane16_swap_b32", "v_permlane32_swap_b32"),
}


def _union(accs: tuple[Access, ...], slots: tuple[str, ...] | None = None,
           files: tuple[str, ...] | None = None) -> frozenset[Loc]:
    out: set[Loc] = set()
    for a in accs:
        if slots is None or a.slot in slots:
            out |= {loc for loc in a.locs if files is None or loc[0] in files}
    return frozenset(out)


VREG = ("v", "a")
# what a producer makes visible: f(reads, writes) -> locations
PRODUCED: dict[str, Callable[[tuple, tuple], frozenset[Loc]]] = {
    "vgpr": lambda r, w: _union(w, files=VREG),
    "sgpr": lambda r, w: _union(w, files=("s",)),
    "vcc": lambda r, w: _union(w) & {("s", 106), ("s", 107)},
    "exec": lambda r, w: _union(w, files=("exec",)),
    "m0": lambda r, w: _union(w, files=("m0",)),
    "srcc": lambda r, w: _union(r, slots=("src2",)),
    "store_data": lambda r, w: _union(r, slots=("vdata",), files=VREG),
    "none": lambda r, w: frozenset({("none", 0)}),
}
CONSUMED: dict[str, Callable[[tuple, tuple], frozenset[Loc]]] = {
    "srcab": lambda r, w: _union(r, slots=("src0", "src1")),
    "srcc": lambda r, w: _union(r, slots=("src2",)),
    "reads": lambda r, w: _union(r),
    "vgpr_writes": lambda r, w: _union(w, files=VREG),
    "touch": lambda r, w: _union(r) | _union(w),
    "lane_select": lambda r, w: _union(r, slots=("src1",)),
    "lane_src": lambda r, w: _union(r, slots=("src0",), files=VREG),
    "any": lambda r, w: frozenset(),
}

_GFX950_PLUS1 = (("gfx950", 1),)
_LLC = "LLVM GCNHazardRecognizer, measured with llc 22 (tests/isa/test_isa_hazards_llc.py)"

RULES: tuple[HazardRule, ...] = (
    # --- MFMA results -----------------------------------------------------------------------------
    *(HazardRule(f"xdl_write_{c}_{slot}", "xdl", "vgpr", c, slot, "overlap",
                 Wait(3, 1, _GFX950_PLUS1, BOTH_2P(5)))
      for c, slot in (("mfma", "srcab"), ("valu", "reads"), ("vmem_ds", "reads"), ("valu", "vgpr_writes"))),
    HazardRule("mfma_2pass_write_srcc_same", "mfma", "vgpr", "mfma", "srcc", "same",
               Wait(0, 0, (), BOTH_2P(2)), "LLVM GCNHazardRecognizer (GFX940 SMFMA4x4 full SrcC)"),
    HazardRule("xdl_write_xdl_srcc_overlap", "xdl", "vgpr", "xdl", "srcc", "overlap_not_same",
               Wait(1, 1, _GFX950_PLUS1)),
    HazardRule("xdl_write_nonxdl_srcc_overlap", "xdl", "vgpr", "nonxdl_mfma", "srcc", "overlap_not_same",
               Wait(1, 1, _GFX950_PLUS1, (("gfx950", 2, 3),))),
    HazardRule("nonxdl_write_nonxdl_srcc_overlap", "nonxdl_mfma", "vgpr", "nonxdl_mfma", "srcc",
               "overlap_not_same", Wait(0, 1), "LLVM GCNHazardRecognizer (SMFMA N-pass overlapped SrcC)"),
    *(HazardRule(f"nonxdl_write_{c}_{slot}", "nonxdl_mfma", "vgpr", c, slot, "overlap", Wait(2, 1))
      for c, slot in (("mfma", "srcab"), ("valu", "reads"), ("vmem_ds", "reads"), ("valu", "vgpr_writes"))),
    # f64 MFMAs (DGEMM): LLVM's fixed DMFMA16x16 / DMFMA4x4 wait states, measured with llc 22
    *(HazardRule(f"dgemm_write_{c}_{slot}", "dgemm", "vgpr", c, slot, "overlap",
                 by_passes(p16=(11, 19), p4=(6, 6)), "LLVM GCNHazardRecognizer (DMFMA), llc 22")
      for c, slot in (("mfma", "srcab"), ("valu", "reads"))),
    HazardRule("dgemm_write_valu_waw", "dgemm", "vgpr", "valu", "vgpr_writes", "overlap",
               by_passes(p16=(11, 11), p4=(6, 6)), "LLVM GCNHazardRecognizer (DMFMA), llc 22"),
    HazardRule("dgemm_write_vmem_ds", "dgemm", "vgpr", "vmem_ds", "reads", "overlap",
               by_passes(p16=(18, 18), p4=(9, 9)), "LLVM GCNHazardRecognizer (DMFMA), llc 22"),
    HazardRule("dgemm_write_dgemm_srcc_same", "dgemm", "vgpr", "dgemm", "srcc", "same",
               by_passes(p16=(0, 0), p4=(4, 4)), "LLVM GCNHazardRecognizer (DMFMA4x4 full SrcC), llc 22"),
    HazardRule("dgemm_write_dgemm_srcc_overlap", "dgemm", "vgpr", "dgemm", "srcc", "overlap_not_same",
               by_passes(p16=(9, 17), p4=(4, 4)), "LLVM GCNHazardRecognizer (DMFMA), llc 22"),
    # SrcC read by an XDL MFMA, then overwritten by VALU (WAR); none for f32/f64 MFMAs (llc 22)
    HazardRule("xdl_srcc_read_valu_war", "xdl", "srcc", "valu", "vgpr_writes", "overlap", Wait(-1, 1)),
    # --- VALU results feeding MFMA ------------------------------------------------------------------
    *(HazardRule(f"valu_write_mfma_{slot}", "valu_nondot", "vgpr", "mfma", slot, "overlap", const(2))
      for slot in ("srcab", "srcc")),
    # --- DOT results (v_dot*): LLVM's DotWrite* wait states, measured with llc 22 -------------------
    *(HazardRule(f"dot_write_mfma_{slot}", "dot", "vgpr", "mfma", slot, "overlap", const(1), _LLC)
      for slot in ("srcab", "srcc")),
    HazardRule("dot_write_valu_read", "dot", "vgpr", "valu", "reads", "overlap", const(3), _LLC,
               same_op=False),
    HazardRule("dot_write_valu_waw", "dot", "vgpr", "valu", "vgpr_writes", "overlap", const(3), _LLC,
               same_op=False),
    HazardRule("dot_write_same_dot_srcab", "dot", "vgpr", "valu", "srcab", "overlap", const(3), _LLC,
               same_op=True),
    HazardRule("dot_write_same_dot_srcc", "dot", "vgpr", "valu", "srcc", "overlap", const(1), _LLC,
               same_op=True),
    HazardRule("dot_write_same_dot_waw", "dot", "vgpr", "valu", "vgpr_writes", "overlap", const(1), _LLC,
               same_op=True),
    # gfx950: a VGPR written by VALU and then swapped by v_permlane16/32_swap (llc 22)
    HazardRule("valu_vgpr_permlane_swap", "valu", "vgpr", "permlane_swap", "reads", "overlap", const(2), _LLC,
               archs=("gfx950",)),
    HazardRule("valu_exec_mfma", "valu", "exec", "mfma", "any", "always", const(4)),
    # --- SGPR / EXEC / VCC written by VALU ------------------------------------------------------------
    HazardRule("valu_sgpr_vmem", "valu", "sgpr", "vmem", "reads", "overlap", const(5)),
    HazardRule("valu_sgpr_valu", "valu", "sgpr", "valu", "reads", "overlap", const(2)),
    HazardRule("valu_sgpr_lane_select", "valu", "sgpr", "lane_rw", "lane_select", "overlap", const(4)),
    HazardRule("valu_exec_lane", "valu", "exec", "lane_rw", "any", "always", const(4)),
    HazardRule("valu_vgpr_lane_read", "valu", "vgpr", "lane_read", "lane_src", "overlap", const(1)),
    HazardRule("valu_vcc_div_fmas", "valu", "vcc", "div_fmas", "any", "always", const(4)),
    # --- VALU forwarding ----------------------------------------------------------------------------
    HazardRule("trans_use", "trans", "vgpr", "valu_nontrans", "reads", "overlap", const(1)),
    HazardRule("partial_dst_use", "valu_partial_dst", "vgpr", "valu", "touch", "overlap", const(1),
               "cdna-facts 3; LLVM GCNHazardRecognizer checkVALUHazards (dst-sel forwarding)"),
    HazardRule("valu_vgpr_dpp", "valu", "vgpr", "dpp", "reads", "overlap", const(2)),
    HazardRule("valu_exec_dpp", "valu", "exec", "dpp", "any", "always", const(5)),
    # --- memory / scalar ----------------------------------------------------------------------------
    HazardRule("wide_store_data_valu_war", "vmem_wide_store", "store_data", "valu", "vgpr_writes", "overlap",
               const(2)),
    HazardRule("salu_m0_lds", "salu", "m0", "m0_lds", "any", "always", const(1)),
    HazardRule("setreg_getreg", "setreg", "none", "getreg_setreg", "any", "same_hwreg", const(2)),
)


@cache
def rules(arch: str) -> tuple[HazardRule, ...]:
    """Every hazard rule that applies on ``arch``."""
    return tuple(r for r in RULES if arch in r.archs)


def mfma_passes(arch: str, spec: InstrSpec, instr: Instr) -> int:
    """Passes of this MFMA instance: f8f6f4 with neither operand fp8 (cbsz, blgp >= 2) takes half
    the passes of the fp8 form (cdna-facts 2.1)."""
    p = spec.passes_on(arch)
    if (spec.mfma is not None and spec.mfma.in_type == "f8f6f4"
            and int(instr.mod("cbsz", 0)) >= 2 and int(instr.mod("blgp", 0)) >= 2):
        return p // 2
    return p


def _hwreg_id(s: InstrSpec, i: Instr) -> int | None:
    for o, op in zip(s.operands, i.operands):
        if o.name == "hwreg" and isinstance(op, Imm):
            return int(op.value) & 0x3F
    return None


def _slot_range(s: InstrSpec, i: Instr, slot: str):
    for o, op in zip(s.operands, i.operands):
        if o.name == slot:
            return op
    return None


def matching_rules(arch: str, producer: Instr, consumer: Instr) -> list[tuple[HazardRule, int]]:
    """The rules that fire for ``producer`` directly followed by ``consumer``, with their wait states."""
    ps, cs = spec_for(arch, producer), spec_for(arch, consumer)
    pr, pw = accesses(ps, producer)
    cr, cw = accesses(cs, consumer)
    passes = mfma_passes(arch, ps, producer) if ps.has("mfma") else 0
    out = []
    for rule in rules(arch):
        if not (PRODUCERS[rule.producer](ps, producer) and CONSUMERS[rule.consumer](cs, consumer)):
            continue
        if rule.same_op is not None and (ps.name == cs.name) != rule.same_op:
            continue
        made = PRODUCED[rule.produced](pr, pw)
        if not made:
            continue
        if rule.relation == "always":
            hit = True
        elif rule.relation == "same_hwreg":
            hit = _hwreg_id(ps, producer) == _hwreg_id(cs, consumer)
        else:
            used = CONSUMED[rule.consumed](cr, cw)
            overlap = bool(made & used)
            same = overlap and _slot_range(ps, producer, "vdst") == _slot_range(cs, consumer, "src2")
            hit = {"overlap": overlap, "same": same, "overlap_not_same": overlap and not same}[rule.relation]
        if hit:
            n = rule.wait(arch, passes)
            if n > 0:
                out.append((rule, n))
    return out


def required_wait_states(arch: str, producer: Instr, consumer: Instr) -> int:
    """Wait states needed between ``producer`` and a directly following ``consumer`` (0 if none)."""
    return max((n for _, n in matching_rules(arch, producer, consumer)), default=0)

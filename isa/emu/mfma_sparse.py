"""Sparse MFMA semantics (``v_smfmac_*``): D = expand(A, index) x B + D for 4:2-sparse A.

Operands (CALC = AMD matrix instruction calculator, ROCm/amd_matrix_instruction_calculator
``-a CDNA3 -i v_smfmac_* -d``): vdst is the C/D accumulator (read and written), src0 holds the
compressed A (2 VGPRs), src1 holds B (4 VGPRs), src2 is ONE VGPR of compression indices
("Compression index field: Src2", it replaces C). Layout of the CDNA3 forms, per lane ``l``
(kd = dense K per lane: 8 for 16-bit, 16 for 8-bit elements; M = rows of the shape):

* A: row ``l % M``; the lane's dense k range is ``kd * (l // M) .. + kd``, split in groups of 4.
  Compressed element p (little-endian in the 2 VGPRs: 16-bit -> VGPR p//2 half p%2, 8-bit ->
  byte p) is one of the 2 kept values of group ``p // 2``: dense k = kd*(l//M) + 4*(p//2) + idx_p.
  CALC: "A k: 4*GPR_num .. +3" (16-bit), "16*floor(lane/16) + 8*GPR_num + 4*floor(GPR_bits/16)"
  (8-bit); "compression k: kd*floor(lane/M) + 4*floor(GPR_bits/4) .. +3" (a nibble per group).
* idx_p = bits [2p+1:2p] of the selected index set: per group a nibble, its low 2 bits name the
  position (0..3) of the group's first stored value, its high 2 bits that of the second. CALC
  (``_get_reg_name``: "which of the four values is stored in the first location, and which ...
  in the second") and composable_kernel's hardware test (test/smfmac_op/smfmac_op_util.hpp:
  ``idx |= i << 2 * a_pos`` with a_frag[a_pos] the a_pos-th stored value, idx 0b11101110 =
  "last two elements of every 4 elements subgroup").
* Index set: a set is kd bits (16-bit types: 4 sets of 8 bits, 8-bit types: 2 sets of 16 bits).
  With cbsz == 0, abid selects set ``abid`` (bits kd*abid ..); with cbsz != 0 set 0 is used.
  CALC (``regno += 64*k_abid/data_size`` only ``if k_cbsz == 0``; CBSZ > 3 illegal on sparse) and
  the MLIR AMDGPU dialect doc of ``amdgpu.sparse_mfma`` ("If cbsz == 0, then abid[1:0] selects
  which index set to use. If cbsz != 0, then the very first is selected"; ABID 0..3 for 16-bit,
  0..1 for 8-bit sources). An abid beyond the sets is refused.
* B: column ``l % N``, k = kd*(l//N) + e for element e (CALC "B k: 8*floor(lane/16) + 2*GPR_num
  + floor(GPR_bits/16)" etc.): the dense MFMA k-major-per-lane family with kpl = kd.
* C/D: the dense 16x16 / 32x32 C/D layout (CALC "D i: 4*floor(lane/16) + GPR_num % 4" and the
  32x32 formula, identical to the dense MFMAs; ``isa.mfma_layout``).
* BLGP is not supported on SMFMAC (CALC "BLGP bits supported: False"): a non-zero blgp is refused.

Numerics: the compressed A is expanded into a dense [M, K] A (zeros at the dropped positions)
and the dense model of ``isa.emu.mfma`` runs on it with the dense family's rule (f16/bf16: fdpa,
groups of 8 dense k; fp8/bf8: fdpa2, groups of 16, FNUZ formats on gfx942 and OCP on gfx950 as
the dense forms; i8: exact integer dot, wrapped). Rounding of sums that are not exact in f32 is
therefore the dense model's, unverified for the sparse unit. Two refusals keep the expansion
honest: two stored values of a group naming the same position (both non-zero) cannot be placed
in a dense A, and a non-finite B value at a position some row drops would give the dense model a
0 x inf = NaN product the sparse unit never forms (MfmaOperandError for both).

EXEC: as the dense MFMAs (isa.emu.control.bind_mfma), only a full EXEC is modelled.

Refused (UnknownInstructionError): the gfx950-only larger-K forms (16x16x64 / 32x32x32 f16/bf16,
16x16x128 / 32x32x64 i8/fp8/bf8). Their per-lane dense k order is not established by the sources
found: the CDNA4 layout tables are cited (LLVM commit ef739b97b1, index sets: 16-bit -> two 16-bit
sets, 8-bit -> one 32-bit set) but not available here, and composable_kernel's ck_tile describes B
of these forms with two K accesses per lane (kBKNumAccess = 2) against one for A, which does not
pin the A/B k correspondence down.
"""
from __future__ import annotations

import numpy as np

from isa.mfma_layout import layout, regs_to_elems
from isa.mfma_shapes import MfmaInfo, MfmaOperandError
from isa.operands import Reg

from .errors import EmulatorError, UnknownInstructionError
from .mfma import _fdpa, _formats, _int_dot, _values
from .registry import RW_SETS, handler
from .regkeys import reg_keys

_GFX942 = frozenset({"gfx942", "gfx950"})   # the CDNA3 forms exist on gfx950 too (LLVM tables)
_FULL = (1 << 64) - 1
_A_REGS, _B_REGS = 2, 4                     # CALC: "GPRs required for A: 2, for B: 4"

# Dense C/D layout donors (same M, N, one block; CALC: same D formulas as the dense MFMAs).
_CD_DONOR = {16: "v_mfma_f32_16x16x16_f16", 32: "v_mfma_f32_32x32x8_f16"}


def _row(name, m, k, a, b, out, kind, group):
    return name, MfmaInfo(name, m, m, k, 1, a, b, out, _A_REGS, 4 if m == 16 else 16, _GFX942,
                          True, kind, group)


_ROWS = [_row("v_smfmac_i32_16x16x64_i8", 16, 64, "i8", "i8", "i32", "int", 64),
         _row("v_smfmac_i32_32x32x32_i8", 32, 32, "i8", "i8", "i32", "int", 32)]
for _t in ("f16", "bf16"):
    # dense K per lane 8; fdpa groups of 8 dense k as the dense f16/bf16 forms (isa.emu.mfma)
    _ROWS += [_row(f"v_smfmac_f32_16x16x32_{_t}", 16, 32, _t, _t, "f32", "fdpa", 8),
              _row(f"v_smfmac_f32_32x32x16_{_t}", 32, 16, _t, _t, "f32", "fdpa", 8)]
for _a in ("fp8", "bf8"):
    for _b in ("fp8", "bf8"):
        _ROWS += [_row(f"v_smfmac_f32_16x16x64_{_a}_{_b}", 16, 64, _a, _b, "f32", "fdpa2", 16),
                  _row(f"v_smfmac_f32_32x32x32_{_a}_{_b}", 32, 32, _a, _b, "f32", "fdpa2", 16)]

# Dense-equivalent shape info of every implemented SMFMAC (K = dense K).
SPARSE_TABLE: dict[str, MfmaInfo] = dict(_ROWS)

_GFX950_ONLY = tuple(
    [f"v_smfmac_f32_16x16x64_{t}" for t in ("f16", "bf16")]
    + [f"v_smfmac_f32_32x32x32_{t}" for t in ("f16", "bf16")]
    + ["v_smfmac_i32_16x16x128_i8", "v_smfmac_i32_32x32x64_i8"]
    + [f"v_smfmac_f32_{s}_{a}_{b}" for s in ("16x16x128", "32x32x64")
       for a in ("fp8", "bf8") for b in ("fp8", "bf8")])
_REFUSED_WHY = ("gfx950 double-K SMFMAC: the per-lane dense k order of A and B is not established "
                "by the sources available (CDNA4 ISA layout tables); not modelled rather than guessed")


def _kd(info: MfmaInfo) -> int:
    """Dense K per lane: 8 for 16-bit, 16 for 8-bit elements (CALC)."""
    return info.k * info.m // 64


def index_set(info: MfmaInfo, cbsz: int, abid: int) -> int:
    """Which index set of the src2 VGPR is used (CALC / MLIR amdgpu.sparse_mfma, see module doc)."""
    sets = 32 // _kd(info)
    if not 0 <= cbsz <= 3:
        raise MfmaOperandError(f"{info.name}: cbsz={cbsz} out of range 0..3 on a sparse MFMA "
                               "(CALC: CBSZ[2] undefined)")
    if cbsz:
        return 0
    if not 0 <= abid < sets:
        raise MfmaOperandError(f"{info.name}: abid={abid} selects index set {abid}, but the "
                               f"index VGPR holds {sets} sets of {_kd(info)} bits")
    return abid


def expand_a(info: MfmaInfo, fmt: str, a: np.ndarray, idx: np.ndarray, sel: int):
    """Compressed A registers uint32[2, 64] + index VGPR uint32[64] -> (dense A codes [M, K],
    kept mask bool[M, K]). Raises MfmaOperandError on a position named twice (both non-zero)."""
    kd, m = _kd(info), info.m
    half = kd // 2
    codes = regs_to_elems(np.asarray(a, np.uint32)[:_A_REGS], info.bits, half)   # [64, half]
    bits = (np.asarray(idx, np.uint32).astype(np.uint64) >> np.uint64(kd * sel))
    p = np.arange(half)
    pos = ((bits[:, None] >> (2 * p).astype(np.uint64)) & np.uint64(3)).astype(np.int64)
    local = 4 * (p // 2)[None, :] + pos                                         # [64, half]
    first, second = local[:, 0::2], local[:, 1::2]
    vals = (codes.view(np.int8).astype(np.float64) if info.kind == "int"
            else _values(codes, fmt)[0])
    both = (first == second) & (vals[:, 0::2] != 0) & (vals[:, 1::2] != 0)
    if both.any():
        lane, g = (int(x[0]) for x in np.nonzero(both))
        raise MfmaOperandError(
            f"{info.name}: lane {lane} group {g}: both stored A values name position "
            f"{int(first[lane, g])} of the group (4:2 indices must differ); how the sparse "
            "unit combines them is not documented")
    lane = np.arange(64)
    rows = np.broadcast_to((lane % m)[:, None], local.shape)
    cols = (kd * (lane // m))[:, None] + local
    dense = np.zeros((m, info.k), codes.dtype)
    kept = np.zeros((m, info.k), bool)
    # zeros first, then the non-zero values: of a pair naming one position the non-zero one
    # stays (the other contributes an exact zero product)
    for sel_mask in (vals == 0, vals != 0):
        dense[rows[sel_mask], cols[sel_mask]] = codes[sel_mask]
    kept[rows[:, None], cols] = True
    return dense, kept


def smfmac(name: str, arch: str, a, b, c, idx, cbsz: int = 0, abid: int = 0, blgp: int = 0):
    """D registers uint32[cd_regs, 64] of SMFMAC ``name`` on ``arch`` from raw registers: a (>= 2
    VGPRs of compressed A), b (>= 4 VGPRs), c (cd_regs accumulator VGPRs), idx (the src2 VGPR)."""
    info = SPARSE_TABLE.get(name)
    if info is None:
        raise MfmaOperandError(f"{name}: not a modelled sparse MFMA"
                               + (f" ({_REFUSED_WHY})" if name in _GFX950_ONLY else ""))
    if arch not in info.arches:
        raise MfmaOperandError(f"{name} does not exist on {arch}")
    if blgp:
        raise MfmaOperandError(f"{name}: blgp={blgp}: BLGP is not supported on SMFMAC (CALC)")
    sel = index_set(info, int(cbsz), int(abid))
    fa, fb = _formats(info, arch, 0, 0)
    kd, m, n = _kd(info), info.m, info.n
    c = np.asarray(c, np.uint32)
    if c.shape != (info.cd_regs, 64):
        raise MfmaOperandError(f"{name}: C/D registers have shape {c.shape}, expected "
                               f"{(info.cd_regs, 64)}")
    am, kept = expand_a(info, fa, a, idx, sel)
    eb = regs_to_elems(np.asarray(b, np.uint32)[:_B_REGS], info.bits, kd)     # [64, kd]
    lane = np.arange(64)
    bm = np.zeros((info.k, n), eb.dtype)
    bm[(kd * (lane // n))[:, None] + np.arange(kd)[None, :], (lane % n)[:, None]] = eb
    cd_flat = layout(_CD_DONOR[m]).cd_flat.reshape(m, n)
    cm = c.reshape(-1)[cd_flat]
    if info.kind == "int":
        d = _int_dot(am[None], bm[None], cm[None])
    else:
        bad_b = ~np.isfinite(_values(bm, fb)[0])                              # [K, N]
        dropped_cols = (~kept).any(axis=0)
        if (bad_b & dropped_cols[:, None]).any():
            k = int(np.nonzero((bad_b & dropped_cols[:, None]).any(axis=1))[0][0])
            raise MfmaOperandError(
                f"{name}: B row k={k} holds inf/NaN at a position some A row drops; the dense "
                "expansion would form 0 x inf there, which the sparse unit does not (not modelled)")
        d = _fdpa(info, am[None], bm[None], cm[None], fa, fb)
    out = np.empty(info.cd_regs * 64, np.uint32)
    out[cd_flat.ravel()] = d.reshape(-1)
    return out.reshape(info.cd_regs, 64)


def _rw(ins):
    """vdst is read and written (it is C and D); src0, src1 and the src2 index VGPR are read."""
    ops = ins.operands
    reads = [k for op in ops[:4] for k in reg_keys(op)]
    return reads, list(reg_keys(ops[0])) if ops else []


for _name in list(SPARSE_TABLE) + list(_GFX950_ONLY):
    RW_SETS[_name] = _rw


def _rows(w, op, n: int, what: str, ins) -> np.ndarray:
    if not isinstance(op, Reg) or op.file not in ("v", "a"):
        raise EmulatorError(f"'{ins}': SMFMAC {what} {op} must be a VGPR or AGPR")
    regs = w.vgpr if op.file == "v" else w.agpr
    if op.index + n > len(regs):
        raise EmulatorError(f"'{ins}': SMFMAC {what} {op} needs {n} registers")
    return regs[op.index:op.index + n]


@handler(*SPARSE_TABLE)
def _smfmac(m, w, ins):
    if len(ins.operands) < 4:
        raise m.error(EmulatorError, f"'{ins}': an SMFMAC needs vdst, srcA, srcB, index VGPR", w)
    if w._exec != _FULL:
        raise m.error(EmulatorError, f"SMFMAC with EXEC {w.exec:#018x}: only a full EXEC is "
                      "modelled (as the dense MFMAs)", w)
    info = SPARSE_TABLE[ins.op]
    vdst, sa, sb, si = ins.operands[:4]
    if not isinstance(si, Reg) or si.file != "v":
        raise m.error(EmulatorError, f"'{ins}': the SMFMAC index operand {si} must be a VGPR", w)
    cbsz, abid, blgp = (int(ins.mod(k, 0) or 0) for k in ("cbsz", "abid", "blgp"))
    try:
        d = smfmac(ins.op, m.arch, _rows(w, sa, _A_REGS, "src0", ins),
                   _rows(w, sb, _B_REGS, "src1", ins),
                   _rows(w, vdst, info.cd_regs, "vdst", ins), w.vgpr[si.index],
                   cbsz=cbsz, abid=abid, blgp=blgp)
    except MfmaOperandError as e:
        raise m.error(EmulatorError, f"'{ins}': {e}", w) from e
    (w.vgpr if vdst.file == "v" else w.agpr)[vdst.index:vdst.index + info.cd_regs] = d


@handler(*_GFX950_ONLY)
def _smfmac_refused(m, w, ins):
    raise m.error(UnknownInstructionError, f"'{ins}': {_REFUSED_WHY}", w)

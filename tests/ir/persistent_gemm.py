"""Proof kernel A of the CFG IR: a persistent GEMM shape, built with ``KernelIR.do_loop``.

Each workgroup (one wave) loops over output tiles ``t = wg, wg + n_wg, ...`` (``tiles`` of them,
an SGPR loop bound from the kernargs); every tile zeroes a 32x32 f32 accumulator, runs its own
inner loop over ``k_iters`` K-steps of 8 (a second SGPR bound; one ``v_mfma_f32_32x32x8_f16``
per step) and stores the tile. Tile ``t`` is C block ``(t >> log2(tn), t & (tn - 1))``.

Operands are pre-packed by the host in MFMA register order (``isa.mfma_layout.pack_a/pack_b``:
A block ``tm``, K-step ``ks``, lane ``l`` = 2 dwords at ``((tm * k_iters + ks) * 64 + l) * 8``),
so the kernel is only the control flow and the memory/MFMA dataflow the passes must get right
across nested back-edges: the loads' waits, the MFMA -> store hazard after the inner loop's exit,
the accumulator and loop state live across both loops.
"""
from __future__ import annotations

import numpy as np

from asmgen.emit import emit_kernel
from asmgen.ir import CoreTag, KernelIR, TagEnum, TagFamily, TagVocabulary
from asmgen.kernarg import ArgSpec, layout, pack_kernargs
from asmgen.kinds.common.buffers import SRD_DWORD3
from asmgen.passes.manager import compile_kernel
from asmgen.program import KernelResources
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm, s, v

MFMA = "v_mfma_f32_32x32x8_f16"
OFFEN = (("offen", True),)
NAME = "persistent_gemm"
ARGS = (ArgSpec("A", "buffer", "f16", (1,), (1,), "in"), ArgSpec("B", "buffer", "f16", (1,), (1,), "in"),
        ArgSpec("C", "buffer", "f32", (1,), (1,), "out"), ArgSpec("k_iters"), ArgSpec("tiles"),
        ArgSpec("n_wg"))


class PTag(TagEnum):
    """This proof kernel's tags (addr is core)."""

    GR_A = "gr_a"
    GR_B = "gr_b"
    MFMA = "mfma"
    STORE = "store"


# a parameterised tag: the four stores of a tile, C_PART[0..3] (one dwordx4 of 16 C values each)
C_PART = TagFamily("c_part", 4)
TAGS = TagVocabulary("persistent_gemm", PTag, families=(C_PART,))
ADDR = (CoreTag.ADDR,)


def build(arch: str = "gfx942", tn_log2: int = 1) -> KernelIR:
    k = KernelIR(target_of(arch), NAME, tags=TAGS)
    off = {sl.arg.name: sl.offset for sl in layout(ARGS)}
    kp = k.precolored("s", s(0, 2), "kernarg")
    wg = k.precolored("s", s(2), "wg_x")
    tid = k.precolored("v", v(0), "tid")
    p = k.prologue
    srd = {}
    for name in ("A", "B", "C"):
        r = srd[name] = k.vreg("s", 4, name=f"srd_{name}")
        p.add(Instr("s_load_dwordx2", (r.sub(0, 2), kp, Imm(off[name]))), ADDR)
        p.add(Instr("s_mov_b32", (r.sub(2), Imm(0x7FFFFFF0))), ADDR)
        p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), ADDR)
    sc = k.vreg("s", 2, name="kiters_tiles")
    nwg = k.vreg("s", name="n_wg")
    p.add(Instr("s_load_dwordx2", (sc, kp, Imm(off["k_iters"]))), ADDR)
    p.add(Instr("s_load_dword", (nwg, kp, Imm(off["n_wg"]))), ADDR)
    kiters, tiles = sc.sub(0), sc.sub(1)
    stride, t = k.vreg("s", name="ab_stride"), k.vreg("s", name="tile")
    p.add(Instr("s_lshl_b32", (stride, kiters, Imm(9))), ADDR)      # k_iters * 64 lanes * 8 B
    p.add(Instr("s_mov_b32", (t, wg)), ADDR)
    vin, vout = k.vreg("v", name="vin"), k.vreg("v", name="vout")
    p.add(Instr("v_lshlrev_b32", (vin, Imm(3), tid)), ADDR)
    p.add(Instr("v_lshlrev_b32", (vout, Imm(6), tid)), ADDR)
    acc = k.vreg("v", 16, name="acc")
    soa, sob, kc = k.vreg("s", name="soff_a"), k.vreg("s", name="soff_b"), k.vreg("s", name="k_left")
    with k.do_loop(tiles, "loop_tile") as head:
        tm, tn = k.vreg("s", name="tm"), k.vreg("s", name="tn")
        head.add(Instr("s_lshr_b32", (tm, t, Imm(tn_log2))), ADDR)
        head.add(Instr("s_and_b32", (tn, t, Imm((1 << tn_log2) - 1))), ADDR)
        head.add(Instr("s_mul_i32", (soa, tm, stride)), ADDR)
        head.add(Instr("s_mul_i32", (sob, tn, stride)), ADDR)
        head.add(Instr("s_mov_b32", (kc, kiters)), ADDR)
        for i in range(16):
            head.add(Instr("v_mov_b32", (acc.sub(i), Imm(0))), ADDR)
        with k.do_loop(kc, "loop_k") as kb:
            a, b = k.vreg("v", 2, name="a"), k.vreg("v", 2, name="b")
            kb.add(Instr("buffer_load_dwordx2", (a, vin, srd["A"], soa), OFFEN), (PTag.GR_A,))
            kb.add(Instr("buffer_load_dwordx2", (b, vin, srd["B"], sob), OFFEN), (PTag.GR_B,))
            kb.add(Instr("s_add_u32", (soa, soa, Imm(512))), ADDR)
            kb.add(Instr("s_add_u32", (sob, sob, Imm(512))), ADDR)
            kb.add(Instr(MFMA, (acc, a, b, acc)), (PTag.MFMA,))
        st = k.block("tile_store")
        soc = k.vreg("s", name="soff_c")
        st.add(Instr("s_lshl_b32", (soc, t, Imm(12))), ADDR)          # 64 lanes * 64 B
        for i in range(4):
            mods = OFFEN + ((("offset", 16 * i),) if i else ())
            st.add(Instr("buffer_store_dwordx4", (acc.sub(4 * i, 4), vout, srd["C"], soc), mods),
                   (PTag.STORE, C_PART[i]))
        st.add(Instr("s_add_u32", (t, t, nwg)), ADDR)
    return k


def assemble(arch: str = "gfx942", tn_log2: int = 1, kernel: KernelIR | None = None):
    """(compiled pipeline result, .s text) of the kernel."""
    c = compile_kernel(kernel or build(arch, tn_log2))
    used = c.allocation.used
    res = KernelResources(name=NAME, arch=arch, vgprs=max(used.get("v", 0), 1),
                          sgprs=max(used.get("s", 0), 3), args=ARGS, max_flat_workgroup_size=64)
    return c, emit_kernel(c.items(), res)


def problem(tm: int, tn: int, k_iters: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((32 * tm, 8 * k_iters)).astype(np.float16)
    b = rng.standard_normal((8 * k_iters, 32 * tn)).astype(np.float16)
    return a, b


def pack(a: np.ndarray, b: np.ndarray, k_iters: int):
    from isa.mfma_layout import pack_a, pack_b
    tm, tn = a.shape[0] // 32, b.shape[1] // 32
    ap = np.stack([np.stack([pack_a(MFMA, a[32 * i:32 * i + 32, 8 * s_:8 * s_ + 8]).T
                             for s_ in range(k_iters)]) for i in range(tm)])
    bp = np.stack([np.stack([pack_b(MFMA, b[8 * s_:8 * s_ + 8, 32 * j:32 * j + 32]).T
                             for s_ in range(k_iters)]) for j in range(tn)])
    return np.ascontiguousarray(ap), np.ascontiguousarray(bp)


def run(hsaco: bytes, a: np.ndarray, b: np.ndarray, k_iters: int, n_wg: int, seed: int = 0,
        arch: str = "gfx942") -> np.ndarray:
    """C = A @ B computed by the kernel on the emulator (``n_wg`` workgroups share the tiles)."""
    from isa.emu import Emulator
    from isa.mfma_layout import unpack_d
    tm, tn = a.shape[0] // 32, b.shape[1] // 32
    n_tiles = tm * tn
    assert n_tiles % n_wg == 0
    ap, bp = pack(a, b, k_iters)
    out = np.full((n_tiles, 64, 16), np.nan, np.float32)
    emu = Emulator(arch=arch, seed=seed)
    kargs = pack_kernargs(ARGS, {"A": ap, "B": bp, "C": out, "k_iters": k_iters,
                                 "tiles": n_tiles // n_wg, "n_wg": n_wg}, emu.alloc)
    emu.launch(hsaco, kernel=NAME, grid=(n_wg, 1, 1), block=(64, 1, 1), kernargs=kargs)
    c = np.empty((32 * tm, 32 * tn), np.float32)
    for t in range(n_tiles):
        i, j = t // tn, t % tn
        c[32 * i:32 * i + 32, 32 * j:32 * j + 32] = unpack_d(MFMA, out[t].T.view(np.uint32))
    return c

"""Vector memory and LDS instruction specs of gfx942/gfx950: DS, MUBUF, GLOBAL, FLAT, SCRATCH.

Counters (cdna-facts section 4): DS bumps lgkmcnt; MUBUF/GLOBAL/SCRATCH and LDS-DMA bump vmcnt;
FLAT bumps both vmcnt and lgkmcnt and is recorded as ``counter="vm"`` with flag ``flat``.
Offsets (section 5): MUBUF 12-bit unsigned, GLOBAL/SCRATCH 13-bit signed, DS 16-bit unsigned
(``offset0``/``offset1`` 8-bit each for read2/write2). Cache bits are ``sc0 sc1 nt``. LDS DMA
(section 6): ``buffer_load_* ... lds`` has no vdata operand (key ``"<mnemonic> lds"`` in the table),
``global_load_lds_*`` likewise; both take the LDS address from M0. Data operands may be AGPRs on
gfx90a+. Returning FLAT/GLOBAL atomics (``sc0``) have an extra vdst and are keyed ``"<mnemonic> rtn"``.
"""
from __future__ import annotations

from .spec import InstrSpec
from .spec_builders import BOTH, GFX950, dsrc, dst, spec, src

DATA = "va"       # VGPR or AGPR data (gfx90a+)
MUBUF_MODS = ("offen", "idxen", "offset", "sc0", "sc1", "nt")
FLAT_MODS = ("offset", "sc0", "sc1", "nt")

# (suffix, dwords, bytes per lane)
LOAD_WIDTHS = (("dword", 1, 4), ("dwordx2", 2, 8), ("dwordx3", 3, 12), ("dwordx4", 4, 16),
               ("ubyte", 1, 1), ("sbyte", 1, 1), ("ushort", 1, 2), ("sshort", 1, 2))
D16_LOADS = (("short_d16", 2), ("short_d16_hi", 2), ("ubyte_d16", 1), ("ubyte_d16_hi", 1),
             ("sbyte_d16", 1), ("sbyte_d16_hi", 1))
STORE_WIDTHS = (("dword", 1, 4), ("dwordx2", 2, 8), ("dwordx3", 3, 12), ("dwordx4", 4, 16),
                ("byte", 1, 1), ("short", 1, 2), ("byte_d16_hi", 1, 1), ("short_d16_hi", 1, 2))
# LDS-DMA widths (section 6): x3/x4 only on gfx950; dwordx2 on neither
LDS_DMA_WIDTHS = (("dword", 4, BOTH), ("ubyte", 1, BOTH), ("sbyte", 1, BOTH), ("ushort", 2, BOTH),
                  ("sshort", 2, BOTH), ("dwordx3", 12, GFX950), ("dwordx4", 16, GFX950))
ATOMICS = ("add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc", "dec", "swap")


def _mem(name, fmt, ops, *, counter="vm", pipe="vmem", flags=(), mods=(), archs=BOTH, nbytes=0,
         reads=()) -> InstrSpec:
    return spec(name, fmt, ops, pipe, archs=archs, counter=counter, flags=flags, mods=mods,
                mem_bytes=nbytes, implicit_reads=reads)


def _ds() -> list[InstrSpec]:
    out = []
    addr = src("vaddr", "v")

    def ds(name, ops, flags, nbytes, mods=("offset",), archs=BOTH, reads=()):
        out.append(_mem(name, "DS", ops, counter="lgkm", pipe="lds", flags=("lds",) + flags,
                        mods=mods, archs=archs, nbytes=nbytes, reads=reads))

    for suffix, n, nb in (("b32", 1, 4), ("b64", 2, 8), ("b96", 3, 12), ("b128", 4, 16), ("u8", 1, 1),
                          ("i8", 1, 1), ("u16", 1, 2), ("i16", 1, 2)):
        ds("ds_read_" + suffix, [dst("vdst", DATA, n), addr], ("load",), nb)
    for suffix, nb in (("u8_d16", 1), ("u8_d16_hi", 1), ("i8_d16", 1), ("i8_d16_hi", 1), ("u16_d16", 2),
                       ("u16_d16_hi", 2)):  # write half of vdst, keep the other half
        ds("ds_read_" + suffix, [dsrc("vdst", DATA), addr], ("load", "partial_dst"), nb)
    for name, n, nb in (("ds_read2_b32", 2, 8), ("ds_read2_b64", 4, 16), ("ds_read2st64_b32", 2, 8),
                        ("ds_read2st64_b64", 4, 16)):
        ds(name, [dst("vdst", DATA, n), addr], ("load",), nb, mods=("offset0", "offset1"))
    for suffix, n, nb in (("b8", 1, 1), ("b16", 1, 2), ("b32", 1, 4), ("b64", 2, 8), ("b96", 3, 12),
                          ("b128", 4, 16), ("b8_d16_hi", 1, 1), ("b16_d16_hi", 1, 2)):
        ds("ds_write_" + suffix, [addr, src("vdata", DATA, n)], ("store",), nb)
    for name, n, nb in (("ds_write2_b32", 1, 8), ("ds_write2_b64", 2, 16), ("ds_write2st64_b32", 1, 8),
                        ("ds_write2st64_b64", 2, 16)):
        ds(name, [addr, src("data0", DATA, n), src("data1", DATA, n)], ("store",), nb,
           mods=("offset0", "offset1"))
    for op in ("add_u32", "sub_u32", "min_i32", "max_i32", "min_u32", "max_u32", "and_b32", "or_b32",
               "xor_b32", "add_f32", "inc_u32", "dec_u32"):
        ds("ds_" + op, [addr, src("vdata", DATA)], ("atomic",), 4)
        ds("ds_" + op.replace("_", "_rtn_", 1), [dst("vdst", DATA), addr, src("vdata", DATA)],
           ("atomic", "load"), 4)
    # cross-lane ops through the LDS crossbar (no LDS memory touched)
    ds("ds_swizzle_b32", [dst("vdst", "v"), addr], ("load",), 4)
    ds("ds_bpermute_b32", [dst("vdst", "v"), addr, src("vdata", "v")], ("load",), 4)
    ds("ds_permute_b32", [dst("vdst", "v"), addr, src("vdata", "v")], ("load",), 4)
    # addtid forms: LDS address from M0 + lane id (cdna-facts section 3, M0 hazard)
    ds("ds_read_addtid_b32", [dst("vdst", DATA)], ("load",), 4, reads=("m0",))
    ds("ds_write_addtid_b32", [src("vdata", DATA)], ("store",), 4, reads=("m0",))
    # gfx950 LDS transpose reads (cdna-facts section 6)
    for suffix, n, nb in (("b64_tr_b4", 2, 8), ("b64_tr_b8", 2, 8), ("b64_tr_b16", 2, 8),
                          ("b96_tr_b6", 3, 12)):
        # the destination may be AGPRs too (llvm-mc-22 accepts a[0:1] for every form)
        ds("ds_read_" + suffix, [dst("vdst", DATA, n), addr], ("load",), nb, archs=GFX950)
    return out


def _mubuf() -> list[InstrSpec]:
    out = []
    tail = [src("vaddr", "vo"), src("srsrc", "s", 4), src("soffset", "isx")]

    def buf(name, ops, flags, nbytes, archs=BOTH, mods=MUBUF_MODS, reads=()):
        out.append(_mem(name, "MUBUF", ops, flags=flags, mods=mods, archs=archs, nbytes=nbytes,
                        reads=reads))

    for suffix, n, nb in LOAD_WIDTHS:
        buf("buffer_load_" + suffix, [dst("vdata", DATA, n)] + tail, ("load",), nb)
    for suffix, nb in D16_LOADS:
        buf("buffer_load_" + suffix, [dsrc("vdata", DATA)] + tail, ("load", "partial_dst"), nb)
    for suffix, n, nb in STORE_WIDTHS:
        buf("buffer_store_" + suffix, [src("vdata", DATA, n)] + tail, ("store",), nb)
    for suffix, nb, archs in LDS_DMA_WIDTHS:
        buf("buffer_load_" + suffix, list(tail), ("load", "lds_dma", "lds"), nb, archs=archs,
            mods=MUBUF_MODS + ("lds",), reads=("m0",))
    # atomics: with sc0 the pre-op value is returned into vdata (isa.access handles that)
    for op in ATOMICS + ("add_f32", "pk_add_f16"):
        buf("buffer_atomic_" + op, [src("vdata", DATA)] + tail, ("atomic",), 4)
    buf("buffer_atomic_cmpswap", [src("vdata", DATA, 2)] + tail, ("atomic",), 4)
    # cache maintenance (LLVM emits them for device-scope fences on gfx942): count in vmcnt
    buf("buffer_wbl2", [], ("cache",), 0, mods=("sc0", "sc1", "nt"))
    buf("buffer_inv", [], ("cache",), 0, mods=("sc0", "sc1", "nt"))
    return out


def _flat_global() -> list[InstrSpec]:
    out = []

    def fl(name, fmt, ops, flags, nbytes, archs=BOTH, reads=()):
        extra = {"FLAT": ("flat",), "SCRATCH": ("scratch",)}.get(fmt, ())
        out.append(_mem(name, fmt, ops, flags=flags + extra, mods=FLAT_MODS, archs=archs,
                        nbytes=nbytes, reads=reads))

    # vaddr is 64-bit with saddr ``off``, 32-bit with an SGPR-pair saddr (width is the maximum)
    gaddr, saddr = src("vaddr", "v", 2), src("saddr", "os", 2)
    faddr = src("vaddr", "v", 2)
    saddr_s, vaddr_s = src("saddr", "os"), src("vaddr", "vo")
    for suffix, n, nb in LOAD_WIDTHS:
        fl("global_load_" + suffix, "GLOBAL", [dst("vdst", DATA, n), gaddr, saddr], ("load",), nb)
        fl("flat_load_" + suffix, "FLAT", [dst("vdst", DATA, n), faddr], ("load",), nb)
        fl("scratch_load_" + suffix, "SCRATCH", [dst("vdst", DATA, n), vaddr_s, saddr_s], ("load",), nb)
    for suffix, nb in D16_LOADS:
        fl("global_load_" + suffix, "GLOBAL", [dsrc("vdst", DATA), gaddr, saddr], ("load", "partial_dst"),
           nb)
    for suffix, n, nb in STORE_WIDTHS:
        fl("global_store_" + suffix, "GLOBAL", [gaddr, src("vdata", DATA, n), saddr], ("store",), nb)
        fl("flat_store_" + suffix, "FLAT", [faddr, src("vdata", DATA, n)], ("store",), nb)
        fl("scratch_store_" + suffix, "SCRATCH", [vaddr_s, src("vdata", DATA, n), saddr_s], ("store",),
           nb)
    for suffix, nb, archs in LDS_DMA_WIDTHS:
        fl("global_load_lds_" + suffix, "GLOBAL", [gaddr, saddr], ("load", "lds_dma", "lds"), nb,
           archs=archs, reads=("m0",))
    for op, w in [(a, 1) for a in ATOMICS + ("add_f32", "pk_add_f16")] + [("cmpswap", 2)]:
        fl("global_atomic_" + op, "GLOBAL", [gaddr, src("vdata", DATA, w), saddr], ("atomic",), 4)
        fl("flat_atomic_" + op, "FLAT", [faddr, src("vdata", DATA, w)], ("atomic",), 4)
    return out


def returning_atomic(s: InstrSpec) -> InstrSpec:
    """The ``sc0`` (returning) form of a FLAT/GLOBAL atomic: an extra vdst in front."""
    from dataclasses import replace
    return replace(s, operands=(dst("vdst", DATA),) + s.operands, flags=s.flags | {"load", "rtn"})


def memory_specs() -> list[InstrSpec]:
    base = _ds() + _mubuf() + _flat_global()
    rtn = [returning_atomic(s) for s in base if s.fmt in ("FLAT", "GLOBAL") and s.has("atomic")]
    return base + rtn

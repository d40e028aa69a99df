"""The tagged KernelIR of a small GEMM and the DAG of its loop body: expected tags, LDS regions,
counts and dependence edges."""
from collections import Counter

import pytest

from asmgen.dag import build_dag
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.kinds.gemm.template import build_gemm


@pytest.fixture(scope="module")
def kernel():
    cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), layout="NN", prefetch=1)
    return cfg, build_gemm(cfg)


def _by_tag(nodes, tag):
    return [n for n in nodes if tag in n.tags]


def test_body_tags_and_counts(kernel):
    cfg, k = kernel
    body = k.loop.body.nodes
    tags = Counter(t for n in body for t in n.tags)
    steps = cfg.tile[2] // cfg.mfma[2]
    bm, bn = cfg.blocks
    assert tags["mfma"] == steps * bm * bn
    assert len([n for n in _by_tag(body, "lr_a") if n.instr.op.startswith("ds_read")]) == steps * bm
    assert len([n for n in _by_tag(body, "lr_b") if n.instr.op.startswith("ds_read")]) == steps * bn
    loads_a = [n for n in _by_tag(body, "gr_a") if n.instr.op.startswith("buffer_load")]
    assert len(loads_a) == cfg.loads_per_thread("a")
    assert {n.instr.op for n in loads_a} == {"buffer_load_dwordx4"}      # K-contiguous A, vec 8
    loads_b = [n for n in _by_tag(body, "gr_b") if n.instr.op.startswith("buffer")]
    assert {n.instr.op for n in loads_b} == {"buffer_load_dword"}        # MN-contiguous B: 2 N
    assert len(loads_b) == 2 * cfg.loads_per_thread("b")                 # ... from 2 K rows,
    writes_b = [n for n in _by_tag(body, "lw_b") if n.instr.op.startswith("ds_")]
    assert {n.instr.op for n in writes_b} == {"ds_write_b32"}            # transposed to 2 dwords
    assert len(writes_b) == 2 * cfg.loads_per_thread("b")
    assert len([n for n in _by_tag(body, "lw_b") if n.instr.op == "v_perm_b32"]) == len(writes_b)
    assert {n.instr.op for n in _by_tag(body, "lw_a") if n.instr.op.startswith("ds_")} == {"ds_write_b128"}
    assert tags["barrier"] == 1 and tags["setprio"] == 2
    # regions: writes and reads of the loop use different LDS buffers
    assert {n.lds_write for n in body if n.lds_write} == {"A_w", "B_w"}
    assert {n.lds_read for n in body if n.lds_read} == {"A_r", "B_r"}
    # nothing the passes insert appears in the template
    assert not any(n.instr.op in ("s_waitcnt", "s_nop") for b in k.blocks() for n in b)


def test_epilogue_and_prologue(kernel):
    cfg, k = kernel
    epi = k.epilogue.nodes
    stores = [n for n in epi if "store" in n.tags]
    bm, bn = cfg.blocks
    assert len(stores) == bm * bn * cfg.acc_regs
    assert all(n.instr.op == "buffer_store_short" for n in stores)
    assert len([n for n in epi if n.instr.op == "v_accvgpr_read_b32"]) == len(stores)
    pro = k.prologue.nodes
    assert len([n for n in pro if n.instr.op == "v_accvgpr_write_b32"]) == bm * bn * cfg.acc_regs
    assert sum(n.instr.op == "s_barrier" for n in pro) == 1
    assert k.lds_bytes == cfg.lds_bytes


def test_loop_dag_edges(kernel):
    cfg, k = kernel
    body = k.loop.body.nodes
    g = build_dag(body, cfg.target, loop=True)
    ids = {n.id: n for n in body}

    def edges(src_pred, dst_pred, distance):
        return [(u, v) for u, v, d in g.edges(data=True) if d["distance"] == distance
                and src_pred(ids[u]) and dst_pred(ids[v])]

    def op_is(prefix):
        return lambda n: n.instr.op.startswith(prefix)

    is_load, is_write, is_read = op_is("buffer_load"), op_is("ds_write"), op_is("ds_read")
    is_barrier, is_pack = op_is("s_barrier"), op_is("v_perm_b32")

    def is_mfma(n):
        return "mfma" in n.tags

    # the staged registers: written by a load, read by next iteration's LDS write (or transpose)
    assert len(edges(is_load, is_write, 1)) >= cfg.loads_per_thread("a")
    assert len(edges(is_load, is_pack, 1)) == 4 * cfg.loads_per_thread("b")   # 2 loads x 2 perms
    # ... and this iteration's load must wait for this iteration's LDS write of the old value (WAR)
    assert edges(is_write, is_load, 0)
    # operands feed MFMAs, accumulators chain MFMAs
    assert len(edges(is_read, is_mfma, 0)) >= 2 * cfg.tile[2] // cfg.mfma[2]
    assert edges(is_mfma, is_mfma, 0)
    # different regions: no LDS edge between this iteration's writes and reads
    assert not edges(is_write, is_read, 0) and not edges(is_read, is_write, 0)
    # every LDS op is fenced by the barrier, also across the back edge
    for n in body:
        if is_write(n) or is_read(n):
            assert g.has_edge(n.id, next(b.id for b in body if is_barrier(b)))


def test_direct_to_lds_nodes():
    """K-contiguous operands load straight into LDS: buffer_load ... lds with M0 set per load,
    no staging registers and no ds_write for them; the other operand keeps the VGPR path."""
    from isa.operands import Special
    cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), layout="NN",
                     direct_to_lds=True)
    assert cfg.pad == 0 and cfg.vec_a == 2
    body = build_gemm(cfg).loop.body.nodes
    dma = [n for n in body if n.instr.has("lds")]
    assert len(dma) == cfg.loads_per_thread("a") and all(n.lds_write == "A_w" for n in dma)
    assert {n.instr.op for n in dma} == {"buffer_load_dword"}
    assert all(len(n.instr.operands) == 3 for n in dma)            # vaddr, srsrc, soffset
    m0_writes = [n for n in body if n.instr.operands and n.instr.operands[0] == Special("m0")]
    assert len(m0_writes) == len(dma)
    assert not [n for n in body if "lw_a" in n.tags and n.instr.op.startswith("ds_write")]
    assert [n for n in body if "lw_b" in n.tags and n.instr.op.startswith("ds_write")]
    g = build_dag(body, cfg.target, loop=True)
    for w, d in zip(m0_writes, dma):                                  # M0 feeds its DMA
        assert g.has_edge(w.id, d.id)


def test_two_staging_sets_unroll_the_body():
    """staging=2: the body holds two iterations, each writing its own staging set to LDS and
    reloading it (tile i + d + 2), so a global load has two iterations to land."""
    cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), staging=2)
    k = build_gemm(cfg)
    body = k.loop.body.nodes
    steps = cfg.tile[2] // cfg.mfma[2]
    assert sum("mfma" in n.tags for n in body) == 2 * steps * cfg.blocks[0] * cfg.blocks[1]
    assert sum(n.instr.op == "s_barrier" for n in body) == 2
    loads = [n for n in body if n.instr.op.startswith("buffer_load")]
    half = len(loads) // 2
    dst = [n.instr.operands[0].id for n in loads]
    assert not set(dst[:half]) & set(dst[half:])               # two disjoint staging sets
    trips = [n for n in k.prologue.nodes if n.instr.op == "s_lshr_b32"
             and n.instr.operands[0] is k.loop.counter]
    assert trips and trips[0].instr.operands[2].value == 6      # ceil(K / (2 * 32)): >> 6

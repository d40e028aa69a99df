"""The block DAG: register, LDS, barrier, global-memory and loop-carried dependences."""
from asmgen.dag import build_dag
from asmgen.ir import KernelIR
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm

OFFEN = (("offen", True),)


def _k():
    return KernelIR(target_of("gfx942"), "t", tags=GEMM_TAGS)


def _edge(g, u, v):
    return g.get_edge_data(u.id, v.id)


def test_register_raw_war_waw():
    k = _k()
    b = k.prologue
    x, y = k.vreg("v"), k.vreg("v")
    n0 = b.add(Instr("v_mov_b32", (x, Imm(1))))
    n1 = b.add(Instr("v_add_u32", (y, x, x)))
    n2 = b.add(Instr("v_mov_b32", (x, Imm(2))))
    n3 = b.add(Instr("v_mov_b32", (y, Imm(3))))
    g = build_dag(b.nodes, k.target)
    assert _edge(g, n0, n1)["kind"] == "raw" and _edge(g, n0, n1)["latency"] == 4
    assert _edge(g, n1, n2)["kind"] == "war"
    assert _edge(g, n0, n2)["kind"] == "waw"
    assert _edge(g, n1, n3)["kind"] == "waw"
    assert _edge(g, n0, n3) is None


def test_sub_ranges_depend_only_when_overlapping():
    k = _k()
    b = k.prologue
    x = k.vreg("v", 4)
    n0 = b.add(Instr("v_mov_b32", (x.sub(0), Imm(1))))
    n1 = b.add(Instr("v_mov_b32", (x.sub(1), Imm(1))))
    n2 = b.add(Instr("ds_write_b64", (k.vreg("v"), x.sub(0, 2))))
    g = build_dag(b.nodes, k.target)
    assert _edge(g, n0, n1) is None
    assert _edge(g, n0, n2) and _edge(g, n1, n2)


def test_lds_regions_and_barrier_fences():
    k = _k()
    b = k.prologue
    addr, d, r1, r2, r3 = (k.vreg("v") for _ in range(5))
    w_a = b.add(Instr("ds_write_b32", (addr, d)), lds_write="A")
    rd_b = b.add(Instr("ds_read_b32", (r1, addr)), lds_read="B")
    rd_a = b.add(Instr("ds_read_b32", (r2, addr)), lds_read="A")
    bar = b.add(Instr("s_barrier"))
    w_b = b.add(Instr("ds_write_b32", (addr, d)), lds_write="B")
    rd_any = b.add(Instr("ds_read_b32", (r3, addr)))
    g = build_dag(b.nodes, k.target)
    assert _edge(g, w_a, rd_b) is None
    assert _edge(g, w_a, rd_a)["kind"] == "lds"
    for n in (w_a, rd_b, rd_a):
        assert _edge(g, n, bar)["kind"] == "barrier"
    assert _edge(g, bar, w_b)["kind"] == "barrier"
    assert _edge(g, w_b, rd_any)["kind"] == "lds"       # no region aliases everything


def test_global_store_order():
    k = _k()
    b = k.prologue
    addr, srd, x, y = k.vreg("v"), k.vreg("s", 4), k.vreg("v"), k.vreg("v")
    l1 = b.add(Instr("buffer_load_dword", (x, addr, srd, Imm(0)), OFFEN))
    st1 = b.add(Instr("buffer_store_dword", (y, addr, srd, Imm(0)), OFFEN))
    l2 = b.add(Instr("buffer_load_dword", (k.vreg("v"), addr, srd, Imm(0)), OFFEN))
    st2 = b.add(Instr("buffer_store_dword", (y, addr, srd, Imm(4)), OFFEN))
    g = build_dag(b.nodes, k.target)
    assert _edge(g, l1, st1)["kind"] == "mem"
    assert _edge(g, st1, l2)["kind"] == "mem"
    assert _edge(g, st1, st2)["kind"] == "mem" and _edge(g, l2, st2)["kind"] == "mem"


def test_loop_carried_edges_have_distance_one():
    k = _k()
    cnt = k.vreg("s")
    body = k.make_loop(cnt)
    x, y, addr = k.vreg("v"), k.vreg("v"), k.vreg("v")
    use = body.add(Instr("v_add_u32", (y, x, x)))
    bar = body.add(Instr("s_barrier"))
    rd = body.add(Instr("ds_read_b32", (k.vreg("v"), addr)), lds_read="A")
    wr = body.add(Instr("ds_write_b32", (addr, y)), lds_write="A")
    bar2 = body.add(Instr("s_barrier"))
    rd2 = body.add(Instr("ds_read_b32", (x, addr)), lds_read="A")      # defines x for next iter
    g = build_dag(body.nodes, k.target, loop=True)
    assert _edge(g, rd2, use)["distance"] == 1 and _edge(g, rd2, use)["kind"] == "raw"
    assert _edge(g, use, rd2)["distance"] == 0           # WAR in the same iteration
    assert _edge(g, rd2, bar)["distance"] == 1           # LDS op after the last barrier -> first barrier
    assert _edge(g, bar2, bar)["distance"] == 1
    assert _edge(g, rd, wr)["distance"] == 0

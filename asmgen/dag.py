"""The instruction DAG of one block: every dependence of its program order, as a networkx DiGraph.

Graph nodes are ``Node.id`` ints with attribute ``node`` (the ``asmgen.ir.Node``) and ``pos`` (its
program-order index). Edges carry ``kind`` ("raw" | "war" | "waw" | "lds" | "mem" | "barrier"),
``distance`` (0 = same iteration; 1 = loop-carried, from iteration i to i+1) and ``latency``
(cycles from the producer's issue until the consumer may issue, from ``asmgen.sched.model``).

Dependences (program order is the reference semantics):
  * registers, through VRegs, physical Regs and special registers (vcc, exec, scc, m0): RAW, WAR,
    WAW per dword unit, from the spec table's operand roles (``asmgen.passes.effects``);
  * LDS: write->read, read->write, write->write between ops whose regions alias (same region
    id, or either is ``"*"``/unset);
  * barriers fence LDS: every LDS op (ds_*, LDS-DMA) stays on its side of every s_barrier, and
    barriers stay in order;
  * global memory: store->store, store->load, load->store (addresses are not analysed).
s_waitcnt and hazard s_nop are not nodes (inserted by passes after scheduling).

Loop-carried dependences (``loop=True``) join the end of the body to its start with distance 1:
register RAW/WAR/WAW between the last accesses of a unit and the first ones of the next
iteration, and barrier fences between the LDS ops after the last barrier and those before the
first. A straight-line schedule of the body always honours them; they are recorded for the
waitcnt/hazard passes and for modulo-style recipes. Distance-0 edges form a DAG.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # networkx is imported by build_dag only (start-up time)
    import networkx as nx

from .ir import Node
from .passes.effects import Effects, effects
from .target import Target


def _aliases(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == "*" or b == "*" or a == b


def _lds_region(node: Node, eff: Effects, write: bool) -> str | None:
    if write:
        return node.lds_write if node.lds_write is not None else "*"
    return node.lds_read if node.lds_read is not None else "*"


class _Builder:
    """Collects edges in a plain dict (one entry per node pair: the smallest distance wins, then the
    largest latency) and hands them to networkx once at the end."""

    def __init__(self, latency) -> None:
        self.latency = latency
        self.edges: dict[tuple[int, int], list] = {}    # (u id, v id) -> [kind, distance, latency]
        edges = self.edges

        def edge(u: Node, v: Node, kind: str, distance: int = 0) -> None:
            if u is v:
                return
            lat = latency(u, v, kind) if distance == 0 or kind == "raw" else 0
            key = (u.id, v.id)
            d = edges.get(key)
            if d is None:
                edges[key] = [kind, distance, lat]
            elif distance < d[1] or (distance == d[1] and lat > d[2]):
                d[0], d[1], d[2] = kind, distance, lat
        self.edge = edge


@dataclass
class BlockDag:
    """The same dependences without networkx (what the pass manager hands the scheduler):
    ``nodes`` in program order, ``edges[(u id, v id)] = [kind, distance, latency]`` in creation
    order (the order ``build_dag`` adds them to its DiGraph)."""

    nodes: list[Node]
    edges: dict[tuple[int, int], list]


def build_dag(nodes: Iterable[Node], target: Target, *, loop: bool = False,
              latency=None) -> nx.DiGraph:
    """The dependence DAG of ``nodes`` in program order on ``target`` (see the module docstring)."""
    d = block_dag(nodes, target, loop=loop, latency=latency)
    import networkx as nx
    g = nx.DiGraph()
    for pos, n in enumerate(d.nodes):
        g.add_node(n.id, node=n, pos=pos)     # (id, attrs) pairs in add_nodes_from are slower
    g.add_edges_from((u, v, {"kind": k, "distance": dist, "latency": lat})
                     for (u, v), (k, dist, lat) in d.edges.items())
    return g


def block_dag(nodes: Iterable[Node], target: Target, *, loop: bool = False,
              latency=None) -> BlockDag:
    """``build_dag``'s dependences as a ``BlockDag`` (no graph object: faster to build)."""
    from .sched.model import kind_latency, result_latency_of
    nodes = list(nodes)
    effs = [effects(target, n.instr) for n in nodes]
    if latency is None:
        res = {n.id: result_latency_of(target, e) for n, e in zip(nodes, effs)}
        by_kind = {k: kind_latency(k, 0) for k in ("war", "waw", "lds", "mem", "barrier")}

        def lat_fn(u, v, kind):
            if kind == "raw":
                return kind_latency(kind, res[u.id])
            return by_kind[kind]     # other kinds do not depend on the producer's latency
    else:
        lat_fn = latency
    b = _Builder(lat_fn)
    edge = b.edge

    last_write: dict = {}          # unit -> node
    readers: dict = {}             # unit -> nodes reading it since its last write
    first_access: dict = {}        # unit -> list[(node, is_write)] up to and including first write
    # LDS: ops since the last barrier (reads and writes), plus fence bookkeeping
    lds_since_barrier: list[tuple[Node, str | None, str | None]] = []
    lds_before_first_barrier: list[Node] = []
    last_barrier: Node | None = None
    first_barrier: Node | None = None
    last_gstore: Node | None = None
    gloads_since_store: list[Node] = []

    for n, e in zip(nodes, effs):
        # registers
        for u in e.reads:
            w = last_write.get(u)
            if w is not None:
                edge(w, n, "raw")
            rs = readers.get(u)
            if rs is None:
                readers[u] = [n]
            else:
                rs.append(n)
            if loop:
                fa = first_access.setdefault(u, [])
                if not fa or not fa[-1][1]:
                    fa.append((n, False))
        for u in e.writes:
            w = last_write.get(u)
            if w is not None:
                edge(w, n, "waw")
            rs = readers.get(u)
            if rs:
                for r in rs:
                    edge(r, n, "war")
            last_write[u] = n
            readers[u] = []
            if loop:
                fa = first_access.setdefault(u, [])
                if not fa or not fa[-1][1]:
                    fa.append((n, True))
        # LDS and barriers
        if e.barrier:
            for m, _, _ in lds_since_barrier:
                b.edge(m, n, "barrier")
            if last_barrier is not None:
                b.edge(last_barrier, n, "barrier")
            lds_since_barrier = []
            last_barrier = n
            if first_barrier is None:
                first_barrier = n
        if e.lds:
            wreg = _lds_region(n, e, True) if e.lds_store else None
            pure_store = e.lds_dma or ("store" in e.spec.flags and "atomic" not in e.spec.flags)
            rreg = None if pure_store else (n.lds_read or n.lds_write or "*")
            for m, mr, mw in lds_since_barrier:
                if (wreg is not None and ((mr is not None and _aliases(wreg, mr))
                                          or (mw is not None and _aliases(wreg, mw)))) or \
                        (rreg is not None and mw is not None and _aliases(rreg, mw)):
                    b.edge(m, n, "lds")
            if last_barrier is not None:
                b.edge(last_barrier, n, "barrier")
            elif loop:
                lds_before_first_barrier.append(n)
            lds_since_barrier.append((n, rreg, wreg))
        # global memory order
        if e.global_store:
            if last_gstore is not None:
                b.edge(last_gstore, n, "mem")
            for m in gloads_since_store:
                b.edge(m, n, "mem")
            last_gstore = n
            gloads_since_store = []
        elif e.global_load:
            if last_gstore is not None:
                b.edge(last_gstore, n, "mem")
            gloads_since_store.append(n)

    if loop:
        _loop_carried(b, last_write, readers, first_access, lds_since_barrier,
                      lds_before_first_barrier, first_barrier, last_barrier)
    return BlockDag(nodes, b.edges)


def _loop_carried(b: _Builder, last_write, readers, first_access, lds_tail, lds_head,
                  first_barrier, last_barrier) -> None:
    for u, fa in first_access.items():
        w = last_write.get(u)
        tail_readers = readers.get(u, ())
        for n, is_write in fa:
            if is_write:
                if w is not None:
                    b.edge(w, n, "waw", 1)
                for r in tail_readers:
                    b.edge(r, n, "war", 1)
            elif w is not None:
                b.edge(w, n, "raw", 1)
    if first_barrier is not None:
        for m, _, _ in lds_tail:
            b.edge(m, first_barrier, "barrier", 1)
        if last_barrier is not None and last_barrier is not first_barrier:
            b.edge(last_barrier, first_barrier, "barrier", 1)
    if last_barrier is not None:
        for n in lds_head:
            b.edge(last_barrier, n, "barrier", 1)


def intra_edges(g: nx.DiGraph):
    """The distance-0 edges (the ones a straight-line schedule must respect)."""
    return [(u, v) for u, v, d in g.edges(data="distance") if d == 0]


def is_valid_order(g: nx.DiGraph, order: list[Node]) -> bool:
    """True when ``order`` contains every node once and respects every distance-0 edge."""
    pos = {n.id: i for i, n in enumerate(order)}
    if len(pos) != g.number_of_nodes() or set(pos) != set(g.nodes):
        return False
    return all(pos[u] < pos[v] for u, v in intra_edges(g))

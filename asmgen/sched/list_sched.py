"""Pure list scheduler: orders a block's nodes so that every distance-0 DAG edge is respected.

Algorithm: classic list scheduling over the ready list (nodes whose in-block predecessors have
all issued). Among ready nodes allowed by the recipe's sched groups (``asmgen.sched.groups``),
the one with the highest ``recipe.priority(node)`` issues next; ties break by a seeded random
number when ``recipe.seed`` is set (the fuzz recipe), else by the lower node id, so a schedule is
deterministic. The default priority (no recipe, or a recipe without ``priority``) is
``(node.priority, height)``: the node's own priority (a template's, e.g. the i32 epilogue's
falling per-element priority), then its latency-weighted height (longest path to a sink, ``asmgen.sched.model`` latencies), i.e.
critical path first.

Ready nodes live in one heap per *class* (nodes with the same group-match signature), so a step
costs O(classes + log n); a whole block is O(n log n + edges).

Recipe protocol (every attribute optional; ``None`` = defaults)::

    class Recipe:
        groups: Sequence[SchedGroup] = ()
        repeat: bool = False              # restart each group pipeline while matching nodes remain
        seed: int | None = None           # random tie-break
        def priority(self, node: Node) -> float | tuple: ...   # higher issues earlier
"""
from __future__ import annotations

import heapq
import random
from typing import TYPE_CHECKING

from ..dag import BlockDag
from ..ir import Node
from .groups import SchedError, pipelines

if TYPE_CHECKING:   # only for annotations: networkx is not imported at start-up
    import networkx as nx


def _succ0(g) -> tuple[list[int], dict[int, list[tuple[int, int]]]]:
    """(node ids in program order, distance-0 successors as (v, latency) per node, in edge
    order) of an ``nx.DiGraph`` from ``asmgen.dag.build_dag`` or an ``asmgen.dag.BlockDag``."""
    if isinstance(g, BlockDag):
        ids = [n.id for n in g.nodes]
        succ: dict[int, list] = {i: [] for i in ids}
        for (u, v), (_, dist, lat) in g.edges.items():
            if dist == 0:
                succ[u].append((v, lat))
        return ids, succ
    pos = dict(g.nodes(data="pos"))
    ids = sorted(pos, key=pos.__getitem__)
    succ = {u: [(v, d["latency"]) for v, d in nbrs.items() if d["distance"] == 0]
            for u, nbrs in g.adjacency()}
    return ids, succ


def heights(g: nx.DiGraph | BlockDag, _succ=None) -> dict[int, int]:
    """Longest latency-weighted path from each node to a sink over distance-0 edges."""
    ids, succ = _succ or _succ0(g)
    h: dict[int, int] = {}
    for u in reversed(ids):
        best = 0
        for v, lat in succ[u]:
            best = max(best, lat + h[v])
        h[u] = best
    return h


class _Pipe:
    __slots__ = ("cur", "filled", "groups", "remaining", "repeat")

    def __init__(self, groups, remaining: int, repeat: bool) -> None:
        self.groups = groups
        self.cur = 0 if groups and remaining else None
        self.filled = 0
        self.remaining = remaining
        self.repeat = repeat

    def advance(self) -> None:
        self.filled = 0
        self.cur += 1
        if self.cur >= len(self.groups):
            self.cur = 0 if (self.repeat and self.remaining > 0) else None
        if self.remaining <= 0:
            self.cur = None


def schedule(nodes: list[Node], g: nx.DiGraph, recipe=None) -> list[Node]:
    """An order of ``nodes`` respecting every distance-0 edge of ``g`` (see module docstring).

    Returns the ordered node list. A SchedGroup that matches no node of the block is a
    ``SchedError`` naming it (a recipe receives the block's tag counts, ``for_block(role,
    tags)``, and leaves out the groups its block has no nodes for); a group whose nodes are not
    ready yet is still closed early rather than deadlock.
    """
    prio_fn = getattr(recipe, "priority", None) if recipe is not None else None
    groups = tuple(getattr(recipe, "groups", None) or ())
    repeat = bool(getattr(recipe, "repeat", False))
    seed: int | None = getattr(recipe, "seed", None)
    rng = random.Random(seed) if seed is not None else None
    by_id = {n.id: n for n in nodes}
    ids, succ0 = _succ0(g)
    if set(by_id) != set(ids):
        raise SchedError(f"DAG has {len(ids)} nodes, block has {len(by_id)}: rebuild the DAG")
    if prio_fn is None:
        h = heights(g, (ids, succ0))
        def prio_fn(n):
            return (n.priority, h[n.id])

    # group-match signature per pipeline
    pipes_by_sync = pipelines(groups)
    sync_ids = list(pipes_by_sync)
    sig: dict[int, tuple] = {}
    counts = {sid: 0 for sid in sync_ids}
    for n in nodes:
        s = []
        for sid in sync_ids:
            m = frozenset(i for i, gr in enumerate(pipes_by_sync[sid]) if gr.matches(n.tags))
            s.append(m)
            if m:
                counts[sid] += 1
        sig[n.id] = tuple(s)
    for sid in sync_ids:
        for i, gr in enumerate(pipes_by_sync[sid]):
            if not any(i in sig[n.id][sync_ids.index(sid)] for n in nodes):
                raise SchedError(f"SchedGroup({sorted(gr.mask)}, count={gr.count}, "
                                 f"sync_id={gr.sync_id}) matches no node of the block "
                                 f"({len(nodes)} nodes); drop it for this block")
    pipes = [_Pipe(pipes_by_sync[sid], counts[sid], repeat) for sid in sync_ids]

    indeg = {n.id: 0 for n in nodes}
    succs: dict[int, list[int]] = {n.id: [] for n in nodes}
    for u in ids:
        for v, _ in succ0[u]:
            indeg[v] += 1
            succs[u].append(v)

    heaps: dict[tuple, list] = {}

    def push(nid: int) -> None:
        n = by_id[nid]
        p = prio_fn(n)
        key = (_neg(p), rng.random() if rng is not None else 0.0, nid)
        heapq.heappush(heaps.setdefault(sig[nid], []), key)

    for n in nodes:
        if indeg[n.id] == 0:
            push(n.id)

    def allowed(s: tuple) -> bool:
        return all(_allows(p, m) for p, m in zip(pipes, s))

    out: list[Node] = []
    skipped = 0
    if not pipes:       # no sched groups: one class, plain list scheduling from one heap
        hp = heaps.get((), [])
        while hp:
            nid = heapq.heappop(hp)[2]
            out.append(by_id[nid])
            for v in succs[nid]:
                indeg[v] -= 1
                if indeg[v] == 0:
                    push(v)
        if len(out) < len(nodes):
            raise SchedError(f"no ready node after {len(out)} of {len(nodes)}: the DAG has a cycle")
    while len(out) < len(nodes):
        for i, p in enumerate(pipes):     # a wait=False group with no ready node closes
            while (p.cur is not None and not p.groups[p.cur].wait
                   and not any(hp and p.cur in cls[i] for cls, hp in heaps.items())):
                p.advance()
        best = None
        best_cls = None
        for cls, hp in heaps.items():
            if hp and allowed(cls) and (best is None or hp[0] < best):
                best, best_cls = hp[0], cls
        if best is None:
            if not any(heaps.values()):
                raise SchedError(f"no ready node after {len(out)} of {len(nodes)}: the DAG has a cycle")
            # nothing allowed: close an open group that blocks the best ready node, so every
            # skip moves that node closer to issuing (no livelock between pipelines)
            cls = min((hp[0], c) for c, hp in heaps.items() if hp)[1]
            blocker = next(p for p, m in zip(pipes, cls) if not _allows(p, m))
            blocker.advance()
            skipped += 1
            if skipped > 64 * (len(nodes) + 1) * max(1, len(groups)):
                raise SchedError(f"sched groups never admit the ready nodes (skipped {skipped} groups)")
            continue
        heapq.heappop(heaps[best_cls])
        nid = best[2]
        n = by_id[nid]
        out.append(n)
        for p, m in zip(pipes, best_cls):
            if m:
                p.remaining -= 1
                if p.cur is not None and p.cur in m:
                    p.filled += 1
                    if p.filled >= p.groups[p.cur].count:
                        p.advance()
                elif p.cur is not None and p.remaining <= 0:
                    p.cur = None
        for v in succs[nid]:
            indeg[v] -= 1
            if indeg[v] == 0:
                push(v)
    return out


def _allows(p: _Pipe, m: frozenset) -> bool:
    """Does pipeline ``p`` let a node with group-match set ``m`` issue now?"""
    if p.cur is None or not m or p.cur in m:
        return True
    return not (p.repeat or any(i >= p.cur for i in m))


def _neg(p):
    if isinstance(p, tuple):
        return tuple([-x for x in p])
    return -p

"""Control-flow edges from block layout and branch instructions (shared by ``KernelIR`` and
``Stream``): a block ends with an optional conditional branch and an optional ``s_branch``; it
falls through to the next block of the layout unless it ends with ``s_branch`` or ``s_endpgm``.
Back-edges (to a block that dominates the source) define natural loops."""
from __future__ import annotations

from collections.abc import Sequence

from isa.instr import Instr

from .nodes import COND_BRANCHES, JUMP, branch_target
from .regs import IRError


def block_successors(names: Sequence[str], labels: dict[str, int],
                     tails: Sequence[Sequence[Instr]]) -> list[list[int]]:
    """Successor indices of every block. ``names``: block names (for messages); ``labels``:
    label -> block index; ``tails``: each block's last instructions (up to two suffice)."""
    out: list[list[int]] = []
    n = len(names)
    for i, tail in enumerate(tails):
        succ: list[int] = []
        falls = True
        rest = list(tail)
        if rest and rest[-1].op == "s_endpgm":
            falls = False
            rest = []
        if rest and rest[-1].op == JUMP:
            succ.append(_target(rest[-1], labels, names[i]))
            falls = False
            rest = rest[:-1]
        if rest and rest[-1].op in COND_BRANCHES:
            succ.insert(0, _target(rest[-1], labels, names[i]))
        if falls:
            if i + 1 >= n:
                raise IRError(f"block {names[i]} falls through past the end of the kernel "
                              f"(the last block must end with s_endpgm or a branch)")
            succ.insert(0, i + 1)
        out.append(list(dict.fromkeys(succ)))
    return out


def _target(instr: Instr, labels: dict[str, int], name: str) -> int:
    lab = branch_target(instr)
    if lab not in labels:
        raise IRError(f"block {name}: {instr} jumps to label {lab!r}, which no block defines")
    return labels[lab]


def predecessors(succ: list[list[int]]) -> list[list[int]]:
    pred: list[list[int]] = [[] for _ in succ]
    for i, ss in enumerate(succ):
        for j in ss:
            pred[j].append(i)
    return pred


def dominators(succ: list[list[int]], entry: int = 0) -> list[frozenset[int]]:
    """Per block, the blocks that dominate it (every path from ``entry`` passes them; a block
    dominates itself); an unreachable block gets every block. The iterative data-flow solution
    (Aho, Lam, Sethi, Ullman, *Compilers*, 2nd ed., section 9.6.1) over reverse postorder: the
    kernels' graphs have tens of blocks."""
    n = len(succ)
    pred = predecessors(succ)
    every = frozenset(range(n))
    dom = [every] * n
    dom[entry] = frozenset((entry,))
    order = [b for b in reverse_postorder(succ, entry) if b != entry]
    changed = True
    while changed:
        changed = False
        for b in order:
            new = frozenset.intersection(*(dom[p] for p in pred[b])) | {b} if pred[b] else {b}
            if new != dom[b]:
                dom[b], changed = frozenset(new), True
    return dom


def natural_loops(succ: list[list[int]]) -> list[tuple[int, int, frozenset[int]]]:
    """(header, latch, blocks) of every back-edge latch -> header, a back edge being one whose
    target dominates its source (``dominators``; not merely one that jumps backwards in layout:
    a cold arm placed after a loop's latch that jumps back to it closes no loop): the header
    and every block that reaches the latch without passing the header."""
    pred = predecessors(succ)
    dom = dominators(succ)
    out = []
    for latch, ss in enumerate(succ):
        for h in ss:
            if h not in dom[latch]:
                continue
            body = {h, latch}
            work = [latch] if latch != h else []
            while work:
                b = work.pop()
                for p in pred[b]:
                    if p not in body:
                        body.add(p)
                        work.append(p)
            out.append((h, latch, frozenset(body)))
    return out


def reverse_postorder(succ: list[list[int]], entry: int = 0) -> list[int]:
    """Blocks reachable from ``entry`` in reverse postorder (a good order for forward dataflow)."""
    seen, order = set(), []
    stack = [(entry, iter(succ[entry]))]
    seen.add(entry)
    while stack:
        b, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            order.append(b)
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    return order[::-1]

"""Hazard rule views shared by instructions that differ only in their vector registers.

The hazard pass runs after register allocation, so the fuzzer's schedules of one kernel hand it
mostly new instructions (their VGPRs differ; about 280 of 430 per schedule of the 64^3 fuzz GEMM),
and a rule view (``hazards._rule_view_cached``) cost ~35 us each: a third of the pass. A view
depends on the registers only through its location sets, and isa.hazards' location functions
(PRODUCED / CONSUMED) are unions of the operand slots' locations filtered by slot and file (the
VCC intersections and differences act on SGPRs only, which stay in the shape). So the view of an
instruction is the view of a *probe* of its shape (the same instruction with every vector operand
moved to its own disjoint range, ``_STRIDE`` registers apart) with each probe location ``v``/``a``
``STRIDE*k + off`` put back at the ``k``-th vector operand's own index + ``off``. That holds for
overlapping operands too (a union of each slot's range). A shape whose probe has another spec,
cannot be built or places a location outside its operands gets no template (the direct view).
tests/passes/test_hazard_place.py compares placed and direct views over renamed kernels.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from isa.instr import Instr
from isa.operands import Reg

from .effects import effects

_VREG = ("v", "a")
_STRIDE = 64            # at most 4 vector operands of at most 64 registers each fit 256
_TEMPLATES: dict = {}
_MAX = 1 << 16


def shape(instr: Instr) -> tuple:
    """``instr`` without the indices of its VGPR and AGPR operands."""
    return (instr.op, instr.mods, instr.encoding,
            tuple(("vreg", o.file, o.count) if isinstance(o, Reg) and o.file in _VREG else o
                  for o in instr.operands))


def placed_view(target, instr: Instr, direct: Callable) -> tuple:
    """``direct(target, instr)`` (the rule view) from its shape's template when it has one."""
    key = (target.arch, shape(instr))
    t = _TEMPLATES.get(key)
    if t is None:
        t = _template(target, instr, direct)
        if len(_TEMPLATES) >= _MAX:
            _TEMPLATES.clear()
        _TEMPLATES[key] = t
    if t is False or t[0] is not effects(target, instr).spec:
        return direct(target, instr)
    _spec, pm, cm, made, used, reach, states = t
    ops = instr.operands
    return pm, cm, _put(made, ops), _put(used, ops), reach, states


def _put(groups, ops) -> dict:
    """{rule: locations} from ((fixed, moved), rules) groups: one set per location function,
    shared by its rules, as the direct view has it."""
    out: dict = {}
    for (fixed, moved), rules in groups:
        locs = fixed | frozenset([(f, ops[j].index + off) for j, f, off in moved]) if moved \
            else fixed
        out.update(dict.fromkeys(rules, locs))
    return out


def _template(target, instr: Instr, direct: Callable):
    vec = [j for j, o in enumerate(instr.operands) if isinstance(o, Reg) and o.file in _VREG]
    if not vec or len(vec) > 256 // _STRIDE or any(instr.operands[j].count > _STRIDE for j in vec):
        return False
    ops = list(instr.operands)
    for k, j in enumerate(vec):
        ops[j] = Reg(ops[j].file, _STRIDE * k, ops[j].count)
    probe = replace(instr, operands=tuple(ops))
    try:
        spec = effects(target, instr).spec
        if effects(target, probe).spec is not spec:
            return False
        pm, cm, made, used, reach, states = direct(target, probe)
    except Exception:  # noqa: BLE001  (a probe the tables refuse: the direct view decides)
        return False
    by_id: dict = {}

    def tpl(locs):
        got = by_id.get(id(locs))
        if got is None:
            fixed, moved = set(), []
            for loc in locs:
                if loc[0] in _VREG:
                    k, off = divmod(loc[1], _STRIDE)
                    if k >= len(vec) or ops[vec[k]].file != loc[0] or off >= ops[vec[k]].count:
                        return None
                    moved.append((vec[k], loc[0], off))
                else:
                    fixed.add(loc)
            got = by_id[id(locs)] = (frozenset(fixed), tuple(sorted(moved)))
        return got
    made_t, used_t = _groups(made, tpl), _groups(used, tpl)
    if made_t is None or used_t is None:
        return False
    return spec, pm, cm, made_t, used_t, reach, states


def _groups(view: dict, tpl: Callable):
    """((template, rules), ...) of a {rule: locations} map, rules grouped by location set."""
    by: dict = {}
    for i, locs in view.items():
        by.setdefault(id(locs), (locs, []))[1].append(i)
    out = []
    for locs, rules in by.values():
        t = tpl(locs)
        if t is None:
            return None
        out.append((t, tuple(rules)))
    return tuple(out)

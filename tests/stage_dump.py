"""Print a kernel's blocks after one pass-pipeline stage, one instruction a line with its tags
and template comment (e.g. ``kstep 1`` on GEMM ds_reads and MFMAs): what the lit tests
(tests/lit) FileCheck and the per-stage goldens (tests/golden) compare.

    python tests/stage_dump.py [--stage schedule|waitcnt|regalloc|hazards] [--block NAME]
                               [--only TAG,TAG] [--brief] KIND [schedule=NAME] [key=value ...]

``--only`` keeps the instructions carrying one of the tags (``wait`` for the inserted
s_waitcnt); ``--brief`` prints each as its opcode (an s_waitcnt as its counters) without
operands, so a FileCheck test reads as the loop's shape.

``key=value`` pairs are the kind's API keywords (values read as Python literals, else as
strings: ``tile=(64,64,32)``, ``layout=NT``); ``schedule`` names the recipe. The generated
code is the one ``asmgen.api.generate`` would emit (same config resolution, same recipe).
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

STAGES = ("schedule", "waitcnt", "regalloc", "hazards")
HIDDEN_TAGS = frozenset({"addr"})     # bookkeeping tags that would only add noise to a listing


def _value(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def snapshots(kind: str, **kw) -> dict[str, list[tuple]]:
    """Per stage, the kernel ``kind``/``kw`` as ``[(block, label, [(text, op, tags, comment)])]``
    (a copy taken when the pass manager's ``dump`` hook reports the stage)."""
    from asmgen.api import resolve
    from asmgen.kinds import registry
    from asmgen.passes.manager import compile_kernel

    k = registry.get(kind)
    schedule = kw.pop("schedule", None)
    params = kw.pop("schedule_params", None)
    cfg_kw, recipe = resolve(k, schedule, params, kw)
    cfg = k.make_config(recipe, **cfg_kw)
    if recipe is not None and hasattr(recipe, "check_config"):
        recipe.check_config(cfg)
    if hasattr(recipe, "bind"):
        recipe = recipe.bind(cfg)
    ir = k.build(cfg, recipe)
    seen: dict[str, list[tuple]] = {}

    def dump(name, prog) -> None:
        seen[name] = [(b.name, b.label, [(str(n.instr), n.instr.op, n.tags, n.comment)
                                         for n in b.nodes]) for b in prog.blocks]
    compile_kernel(ir, recipe, dump=dump)
    return seen


def stage_text(kind: str, stage: str = "hazards", blocks: tuple[str, ...] = (),
               only: frozenset[str] = frozenset(), brief: bool = False, **kw) -> str:
    """The listing of ``blocks`` (all when empty) of the kernel ``kind``/``kw`` after ``stage``
    (``only``/``brief``: see the module docstring)."""
    if stage not in STAGES:
        raise ValueError(f"stage {stage!r} is not one of {STAGES}")
    return listing(snapshots(kind, **kw)[stage], blocks, only, brief)


def listing(snap: list[tuple], blocks: tuple[str, ...] = (), only: frozenset[str] = frozenset(),
            brief: bool = False) -> str:
    """The text of one ``snapshots`` stage (see the module docstring)."""
    lines = []
    for name, label, nodes in snap:
        if blocks and name not in blocks:
            continue
        lines.append(f"; -- block {name}")
        if label is not None:
            lines.append(f"{label}:")
        for text, op, tags, comment in nodes:
            if only and only.isdisjoint(tags):
                continue
            wait = "wait" in tags
            if brief and not wait:
                text = op
            shown = " ".join(sorted(tags - HIDDEN_TAGS))
            # an inserted wait's comment names virtual register ids: noise in a listing
            note = "; ".join(x for x in (shown, "" if wait else comment) if x)
            lines.append(f"  {text}" + (f"  ; {note}" if note else ""))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stage", default="hazards", choices=STAGES)
    ap.add_argument("--block", action="append", default=[], help="only this block (repeatable)")
    ap.add_argument("--only", default="", help="comma-separated tags to keep")
    ap.add_argument("--brief", action="store_true", help="opcodes only")
    ap.add_argument("kind")
    ap.add_argument("pairs", nargs="*", metavar="key=value")
    args = ap.parse_args(argv)
    kw = {}
    for pair in args.pairs:
        key, sep, val = pair.partition("=")
        if not sep:
            ap.error(f"{pair!r} is not key=value")
        kw[key] = _value(val)
    only = frozenset(t for t in args.only.split(",") if t)
    sys.stdout.write(stage_text(args.kind, args.stage, tuple(args.block), only, args.brief, **kw))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())

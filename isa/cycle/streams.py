"""Build per-wave ``WaveStream``s for the cycle model: from the emulator's trace records
(``isa.emu.trace``: wg, wave, simd, pc, instr text, lds_bank_conflicts) or from assembly text.

Trace records of one wave are in issue order, so grouping them by (wg, wave) gives each wave's
dynamic stream. Text is parsed once per distinct line (``isa.asm_parse.parse_line``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..asm_parse import parse_line
from ..instr import Instr
from .model import CycleModelError, WaveStream


def streams_from_trace(records: Iterable[dict], wgs: Sequence | None = None) -> list[WaveStream]:
    """One ``WaveStream`` per (workgroup, wave) in ``records``; ``wgs`` keeps only those workgroups
    (ids as they appear in the records, e.g. tuples). Waves keep the SIMD the emulator gave them.
    Workgroups are renumbered 0, 1, ... in order of first appearance."""
    keep = None if wgs is None else {tuple(g) if isinstance(g, list) else g for g in wgs}
    parsed: dict[str, Instr] = {}
    groups: dict = {}
    wg_index: dict = {}
    for rec in records:
        wg = rec.get("wg", 0)
        wg = tuple(wg) if isinstance(wg, list) else wg
        if keep is not None and wg not in keep:
            continue
        text = rec["instr"]
        ins = parsed.get(text)
        if ins is None:
            ins = parse_line(text)
            if ins is None:
                raise CycleModelError(f"trace record at pc {rec.get('pc')} has no instruction: {text!r}")
            parsed[text] = ins
        wgi = wg_index.setdefault(wg, len(wg_index))
        g = groups.setdefault((wgi, rec["wave"]), {"simd": rec.get("simd"), "i": [], "pc": [], "c": []})
        g["i"].append(ins)
        g["pc"].append(int(rec["pc"]))
        g["c"].append(int(rec.get("lds_bank_conflicts", 0)))
    out = []
    n_per_wg: dict[int, int] = {}
    for (wgi, wave), g in sorted(groups.items()):
        n_per_wg[wgi] = n_per_wg.get(wgi, 0) + 1
        out.append(WaveStream(wave=wave, instrs=g["i"], wg=wgi, simd=g["simd"], pcs=g["pc"],
                              lds_conflicts=g["c"]))
    return out


def streams_from_asm(texts: Sequence[str], simds: Sequence[int] | None = None,
                     wg: int = 0) -> list[WaveStream]:
    """Hand-made streams: one assembly text (lines) per wave; labels and comments are skipped."""
    out = []
    for i, text in enumerate(texts):
        instrs = [ins for ins in (parse_line(ln) for ln in text.splitlines()) if ins is not None]
        out.append(WaveStream(wave=i, instrs=instrs, wg=wg,
                              simd=None if simds is None else simds[i]))
    return out

"""docs/hazard-audit.md against isa.hazards: the audit table cannot drift from the code, the
emulator's view follows AMD's figures in the brief's order (the ISA guide's table for the arch:
CDNA3 for gfx942, CDNA4 for gfx950; else rocRoller; else LLVM), and the generator's view is never
weaker than the judge's (nor than LLVM's) for any rule, arch or pass count."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from isa.hazards import RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "hazard-audit.md"
PASSES = (0, 1, 2, 4, 8, 16)
COLS = ("rule", "archs", "observer", "isa3", "isa4", "rocroller", "llvm", "emulator", "generator", "note")
ISA_COL = {"gfx942": "isa3", "gfx950": "isa4"}


def _rows() -> dict[str, dict[str, str]]:
    rows = {}
    text = DOC.read_text()
    table = text[text.index("## Table"):]
    for line in table.splitlines():
        if not line.startswith("| ") or line.startswith(("| rule ", "|---")):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == len(COLS), line
        row = dict(zip(COLS, cells))
        assert row["rule"] not in rows, f"rule {row['rule']} has two rows"
        rows[row["rule"]] = row
    return rows


ROWS = _rows()
BY_NAME = {r.name: r for r in RULES}


def _figures(cell: str) -> list[tuple[int | None, int]] | None:
    """``N`` -> [(None, N)]; ``2p:5 4p:7`` -> [(2, 5), (4, 7)]; '—' or a remark -> None."""
    if cell in ("—", "") or cell.startswith("("):
        return None
    if re.fullmatch(r"-?\d+", cell):
        return [(None, int(cell))]
    out = []
    for item in cell.split():
        m = re.fullmatch(r"(\d+)p:(-?\d+)", item)
        assert m, f"bad figure {item!r} in {cell!r}"
        out.append((int(m[1]), int(m[2])))
    return out


def test_every_rule_has_exactly_one_row_and_every_row_a_rule():
    assert sorted(ROWS) == sorted(BY_NAME)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_row_matches_the_code(name):
    rule, row = BY_NAME[name], ROWS[name]
    assert row["archs"] == " ".join(rule.archs)
    assert row["emulator"] == str(rule.wait_for("emu"))
    assert row["generator"] == str(rule.wait_for("gen"))
    first = rule.archs[0]                 # the rocRoller / LLVM columns are this arch's figures
    rr, llvm = _figures(row["rocroller"]), _figures(row["llvm"])
    for arch in rule.archs:
        isa = _figures(row[ISA_COL[arch]])
        amd = isa if isa is not None else (rr if rr is not None else llvm) if arch == first else None
        checks = [(amd, "emu", True), (isa, "gen", False)] + ([(llvm, "gen", False)] if arch == first else [])
        for figs, view, exact in checks:
            for p, n in figs or ():
                for passes in (PASSES if p is None else (p,)):
                    got = rule.wait_for(view)(arch, passes)
                    if exact:
                        assert max(got, 0) == n, (name, arch, view, passes, got, n)
                    else:
                        assert got >= n, (name, arch, view, passes, got, n)


def test_every_rule_has_an_isa_cell_or_says_why():
    """The guides' column is filled for every rule: a figure, '—' (no such arch), or a remark."""
    for name, row in ROWS.items():
        for arch in BY_NAME[name].archs:
            assert row[ISA_COL[arch]] not in ("", "—"), (name, arch)


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_generator_never_weaker_than_emulator(rule):
    for arch in rule.archs:
        for p in PASSES:
            assert rule.wait_for("gen")(arch, p) >= rule.wait_for("emu")(arch, p), (arch, p)


def test_unknown_view_is_refused():
    with pytest.raises(ValueError, match="hazard view"):
        RULES[0].wait_for("hw")

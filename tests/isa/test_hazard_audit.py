"""docs/hazard-audit.md against isa.hazards: the audit table cannot drift from the code, the
emulator's view follows AMD's figures, and the generator's view is never weaker than the judge's
(nor than LLVM's) for any rule, arch or pass count."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from isa.hazards import RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "hazard-audit.md"
PASSES = (0, 1, 2, 4, 8, 16)
COLS = ("rule", "archs", "observer", "rocroller", "llvm", "emulator", "generator", "note")


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
    arch = rule.archs[0]
    rr, llvm = _figures(row["rocroller"]), _figures(row["llvm"])
    amd = rr if rr is not None else llvm       # the judge follows AMD; LLVM where AMD is silent
    for figs, view, exact in ((amd, "emu", True), (llvm, "gen", False)):
        for p, n in figs or ():
            for passes in (PASSES if p is None else (p,)):
                got = rule.wait_for(view)(arch, passes)
                if exact:
                    assert max(got, 0) == n, (name, view, passes, got, n)
                else:
                    assert got >= n, (name, view, passes, got, n)


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_generator_never_weaker_than_emulator(rule):
    for arch in rule.archs:
        for p in PASSES:
            assert rule.wait_for("gen")(arch, p) >= rule.wait_for("emu")(arch, p), (arch, p)


def test_unknown_view_is_refused():
    with pytest.raises(ValueError, match="hazard view"):
        RULES[0].wait_for("hw")

"""Per-stage goldens of tiny kernels, so a reviewer sees what a change does to each pass and a
template edit changes a few golden lines, not thousands.

For each kernel, one file per pass-pipeline stage (``passes.manager`` ``dump`` hook, listed by
``tests/stage_dump.py``), each holding only what that stage decides:

  ``.schedule``  every block's order: opcode, tags and K-step per line (no register names);
  ``.waitcnt``   each inserted s_waitcnt with the instruction it precedes;
  ``.regalloc``  the loop blocks on physical registers (plus the register counts of the kernel);
  ``.hazards``   each inserted s_nop with the instruction it precedes.

A mismatch fails with a unified diff; refresh on purpose with ``python -m pytest tests/golden
--update-golden`` and commit the new files with the change that caused them.
"""
from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path

import pytest

from tests.stage_dump import listing, snapshots

HERE = Path(__file__).parent / "stages"
STAGES = ("schedule", "waitcnt", "regalloc", "hazards")

CASES = {
    "gemm_f16_nn_pgr1_gfx942": ("gemm", {"m": 32, "n": 32, "k": 32, "tile": (32, 32, 16), "waves": (1, 1),
                                             "schedule": "pgr1"}),
    "gemm_bf16_nt_ck_v4_gfx942": ("gemm", {"m": 32, "n": 32, "k": 64, "dtype": "bf16", "layout": "NT",
                                               "tile": (32, 32, 32), "waves": (1, 1), "schedule": "ck_v4"}),
    "gemm_f16_nt_pgr2_dma_gfx950": ("gemm", {"m": 32, "n": 32, "k": 64, "arch": "gfx950", "layout": "NT",
                                                 "tile": (32, 32, 32), "waves": (1, 1), "schedule": "pgr2",
                                                 "direct_to_lds": True}),
    "attention_f16_d64_causal_gfx942": ("attention", {"seqlen_q": 32, "seqlen_k": 64, "head_dim": 64,
                                                          "causal": True}),
}
REG = re.compile(r"\b([vas])\[?(\d+)(?::(\d+))?\]?")


def _inserted(snap, tag: str) -> str:
    """Each node carrying ``tag`` (inserted by the stage) with the next instruction's opcode."""
    lines = []
    for name, _, nodes in snap:
        lines.append(f"; -- block {name}")
        for i, (text, _, tags, _) in enumerate(nodes):
            if tag in tags:
                nxt = next((op for _, op, t, _ in nodes[i + 1:] if tag not in t), "<end>")
                lines.append(f"  {text}  -> {nxt}")
    return "\n".join(lines) + "\n"


def _registers(snap) -> str:
    """``; registers: a=.. s=.. v=..``: one past the highest physical register of each file."""
    used: dict[str, int] = {}
    for _, _, nodes in snap:
        for text, *_ in nodes:
            operands = text.split(" ", 1)[1] if " " in text else ""
            for f, lo, hi in REG.findall(operands):
                used[f] = max(used.get(f, 0), int(hi or lo) + 1)
    return "; registers: " + " ".join(f"{f}={used[f]}" for f in sorted(used)) + "\n"


@functools.cache
def _snaps(name: str):
    kind, kw = CASES[name]
    return snapshots(kind, **dict(kw))


def render(name: str, stage: str) -> str:
    snap = _snaps(name)[stage]
    if stage == "schedule":
        return listing(snap, brief=True)
    if stage == "waitcnt":
        return _inserted(snap, "wait")
    if stage == "hazards":
        return _inserted(snap, "nop")
    loops = tuple(b for b, label, _ in snap if label is not None)
    return _registers(snap) + listing(snap, blocks=loops)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_stage_matches_golden(name, stage, request):
    text = render(name, stage)
    path = HERE / f"{name}.{stage}"
    if request.config.getoption("--update-golden"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"no golden file {path}; create it with --update-golden"
    want = path.read_text()
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{path.name}", "generated", n=2))
        pytest.fail(f"{name} after {stage}: differs from the golden file (refresh with "
                    f"--update-golden if intended):\n{diff[:6000]}")


def test_a_changed_schedule_changes_few_golden_lines():
    """The goldens localise a change: swapping the recipe of the tiny ck_v4 kernel for pgr1
    changes its loop order (and so its schedule golden), but not the prologue's listing."""
    kind, kw = CASES["gemm_bf16_nt_ck_v4_gfx942"]
    other = snapshots(kind, **(dict(kw) | {"schedule": "pgr1", "frag_buffers": 2}))["schedule"]
    mine = _snaps("gemm_bf16_nt_ck_v4_gfx942")["schedule"]
    assert listing(other, blocks=("prologue",), brief=True) == \
        listing(mine, blocks=("prologue",), brief=True)
    assert listing(other, blocks=("loop",), brief=True) != listing(mine, blocks=("loop",), brief=True)

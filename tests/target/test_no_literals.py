"""No arch-name literal outside the Target, no element-size literal in the kinds' templates.

Arch names: every string constant in the code of ``asmgen/`` and ``schedules/`` (f-string parts
included) that contains ``gfx942`` or ``gfx950`` fails, except in ``asmgen/target.py`` and
``asmgen/dtypes.py`` (the tables) -- an arch fact belongs to ``asmgen.target.Target`` (a feature
query such as ``target.has("v_permlane32_swap_b32")``, a table value) or names an arch through
``ARCHES`` / ``CDNA3`` / ``CDNA4`` / ``DEFAULT_ARCH``. Docstrings and comments are prose (they cite
which arch a fact is about) and are not code: they are not checked. isa/ is the instruction-set
layer and is not checked either.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCH_RE = re.compile(r"gfx9(42|50)")
ARCH_TABLES = {"asmgen/target.py", "asmgen/dtypes.py"}


def _sources(*dirs: str):
    for d in dirs:
        for p in sorted((ROOT / d).rglob("*.py")):
            yield p.relative_to(ROOT).as_posix(), p.read_text()


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = n.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def arch_literals(path: str, text: str) -> list[str]:
    tree = ast.parse(text)
    docs = _docstrings(tree)
    return [f"{path}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
            and ARCH_RE.search(n.value)]


def test_no_arch_literal_outside_the_target():
    found = [hit for path, text in _sources("asmgen", "schedules") if path not in ARCH_TABLES
             for hit in arch_literals(path, text)]
    assert not found, "arch-name literals outside asmgen/target.py:\n" + "\n".join(found)


def test_the_arch_check_finds_one():
    src = ('"""doc gfx942"""\n# gfx950 comment\nx = "gfx950"\ny = f"{x} on gfx942"\n'
           'def f():\n    """gfx942 prose"""\n    return {"gfx942": 1}\n')
    hits = arch_literals("m.py", src)
    assert [h.split(":")[1] for h in hits] == ["3", "4", "7"], hits

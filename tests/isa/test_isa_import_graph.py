"""isa/ imports one way: no import cycle among its modules (tests/import_graph.py, ast-based) and no
import of asmgen or schedules from anywhere in isa/ (the judge shares no code with what it judges)."""
from __future__ import annotations

import import_graph


def test_isa_has_no_import_cycle():
    g = import_graph.graph(("isa", "asmgen", "schedules"))
    found = import_graph.cycles(g, "isa")
    assert found == [], "import cycles in isa/: " + "; ".join(" <-> ".join(c) for c in found)


def test_isa_imports_nothing_above_it():
    g = import_graph.graph(("isa", "asmgen", "schedules"))
    up = import_graph.imports_of(g, "isa", "asmgen") + import_graph.imports_of(g, "isa", "schedules")
    assert up == [], f"isa/ imports from above it: {up}"


def test_the_helper_finds_a_cycle(tmp_path):
    """The checker itself: a two-module circle and a relative-import circle are both reported."""
    pkg = tmp_path / "pk"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from . import b\n")
    (pkg / "b.py").write_text("def f():\n    from pk.a import x\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from ..sub import d\n")
    (pkg / "sub" / "d.py").write_text("from pk.sub.c import y\n")
    (pkg / "e.py").write_text("import pk.a\n")
    g = import_graph.graph(("pk",), tmp_path)
    assert import_graph.cycles(g, "pk") == [["pk.a", "pk.b"], ["pk.sub.c", "pk.sub.d"]]
    assert import_graph.cycles(g, "pk.sub") == [["pk.sub.c", "pk.sub.d"]]
    assert import_graph.imports_of(g, "pk.e", "pk") == [("pk.e", "pk.a")]

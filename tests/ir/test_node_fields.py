"""Every ``Node`` field is something the compiler reads (issue 12: no dead fields). A template's
pipeline stage is where it puts a node, so it is no field (asking for one is an error); the
node's ``priority`` is read by the default scheduler (and set by the GEMM's i32 epilogue)."""
import ast
import dataclasses
from pathlib import Path

import pytest

from asmgen.ir import KernelIR, Node
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm

ROOT = Path(__file__).resolve().parents[2]
# the readers that give each field its meaning (any one attribute read of it suffices)
READERS = ("dag.py", "passes", "sched", "emit", "ir/stream.py", "ir/cfg.py")


def _attribute_reads() -> set[str]:
    names = set()
    for rel in READERS:
        p = ROOT / "asmgen" / rel
        for f in ([p] if p.suffix == ".py" else sorted(p.rglob("*.py"))):
            for node in ast.walk(ast.parse(f.read_text())):
                if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    names.add(node.attr)
    return names


def test_every_node_field_is_read_by_the_compiler():
    fields = {f.name for f in dataclasses.fields(Node)}
    assert fields == {"id", "instr", "tags", "priority", "lds_read", "lds_write", "comment",
                      "publish_after"}
    unread = fields - _attribute_reads()
    assert not unread, f"Node fields no pass, scheduler or emitter reads: {sorted(unread)}"


@pytest.mark.parametrize("field", ["stage"])
def test_the_deleted_fields_are_refused(field):
    k = KernelIR(target_of("gfx942"), "t", tags=GEMM_TAGS)
    with pytest.raises(TypeError, match=field):
        k.prologue.add(Instr("v_mov_b32", (k.vreg("v"), Imm(0))), ("addr",), **{field: 1})

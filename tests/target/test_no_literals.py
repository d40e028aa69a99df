"""No arch-name literal outside the Target, no element-size literal in the kinds' templates.

Arch names: every string constant in the code of ``asmgen/`` and ``schedules/`` (f-string parts
included) that contains ``gfx942`` or ``gfx950`` fails, except in ``asmgen/target.py`` and
``asmgen/dtypes.py`` (the tables) -- an arch fact belongs to ``asmgen.target.Target`` (a feature
query such as ``target.has("v_permlane32_swap_b32")``, a table value) or names an arch through
``ARCHES`` / ``CDNA3`` / ``CDNA4`` / ``DEFAULT_ARCH``. Docstrings and comments are prose (they cite
which arch a fact is about) and are not code: they are not checked. isa/ is the instruction-set
layer and is not checked either.

Arch-name parameters: no function in the passes, the scheduler, the IR, the DAG or the mutation
proof's static predictor (``TARGET_TAKERS``) has a parameter named ``arch`` (or ``*_arch``) or any
parameter annotated ``str`` whose name says arch: those layers take a ``Target`` (or read the
kernel's, ``KernelIR.target``); only the config / CLI boundary turns a name into one
(``asmgen.target.target_of``).

Element sizes: in every module of ``asmgen/kinds/*/`` (templates, configs, profiles), a product
(``a * b * ...``, the whole chain) or a floor division with an integer literal ``2`` as a factor
fails when another factor names an element count: one of ``ELEMENT_COUNTS`` (head_dim / D,
k_per_lane / kpl, vec, kvec, mn_vec, tile, pad, mfma, mfma_k, an element index k / kk / dk). That
is "2 bytes per f16/bf16 element" or "2 elements per dword" written as a number: it is spelled
through the config's ``DType`` instead (``cfg.in_type.nbytes(n)``, ``.bytes``, ``.per_dword``,
``.log2_bytes``). Not seen by this rule (and checked by review instead): shift amounts (an
``Imm(1)`` shift also indexes dwords and swizzle units, so it cannot be told apart; the element ->
byte shifts use ``log2_bytes``), and byte constants of the attention V tile's transposed 16-bit
layout (``vtile.ROW_BYTES``), which the attention config restricts to 16-bit types.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCH_RE = re.compile(r"gfx9(42|50)")
ARCH_TABLES = {"asmgen/target.py", "asmgen/dtypes.py"}
ELEMENT_COUNTS = frozenset({"D", "head_dim", "k_per_lane", "kpl", "vec", "kvec", "mn_vec", "tile",
                            "pad", "mfma", "mfma_k", "k", "kk", "dk"})


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


def _names(node: ast.AST) -> set[str]:
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
            if isinstance(n, (ast.Name, ast.Attribute))}


def _factors(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _factors(node.left) + _factors(node.right)
    return [node]


def _is_two(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 2


def element_size_literals(path: str, text: str) -> list[str]:
    hits = []
    for n in ast.walk(ast.parse(text)):
        if not (isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Mult, ast.FloorDiv))):
            continue
        fs = _factors(n) if isinstance(n.op, ast.Mult) else [n.left, n.right]
        others = [f for f in fs if not _is_two(f)]
        if len(others) < len(fs) and any(_names(f) & ELEMENT_COUNTS for f in others):
            hits.append(f"{path}:{n.lineno}: {ast.unparse(n)}")
    return sorted(set(hits))


def test_no_element_size_literal_in_the_kinds():
    found = [hit for path, text in _sources("asmgen/kinds")
             for hit in element_size_literals(path, text)]
    assert not found, "element-size literals (use the config's DType):\n" + "\n".join(found)


def test_the_element_size_check_finds_them():
    src = ("a = 2 * D\nb = BLOCK_K * 2 * head_dim\nc = cfg.k_per_lane // 2\n"
           "d = (cfg.tile[2] + cfg.pad) * 2\ne = 2 * w + 1\nf = 2.0 * m * n * k\n"
           "g = cfg.in_type.nbytes(D)\nh = 3 * D\n")
    hits = element_size_literals("m.py", src)
    assert [h.split(":")[1] for h in hits] == ["1", "2", "3", "4"], hits


def test_no_arch_literal_outside_the_target():
    found = [hit for path, text in _sources("asmgen", "schedules") if path not in ARCH_TABLES
             for hit in arch_literals(path, text)]
    assert not found, "arch-name literals outside asmgen/target.py:\n" + "\n".join(found)


TARGET_TAKERS = ("asmgen/passes", "asmgen/sched", "asmgen/ir", "asmgen/dag.py",
                 "asmgen/fuzz/predict.py", "asmgen/fuzz/mutate_sites.py")


def arch_parameters(path: str, text: str) -> list[str]:
    hits = []
    for n in ast.walk(ast.parse(text)):
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        a = n.args
        for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg):
            if arg is None:
                continue
            ann = ast.unparse(arg.annotation) if arg.annotation is not None else ""
            named = arg.arg == "arch" or arg.arg.endswith("_arch")
            if named or ("arch" in arg.arg.lower() and "str" in ann):
                hits.append(f"{path}:{arg.lineno}: {getattr(n, 'name', 'lambda')}"
                            f"({arg.arg}{': ' + ann if ann else ''})")
    return hits


def _target_taker_sources():
    for d in TARGET_TAKERS:
        p = ROOT / d
        if p.is_file():
            yield d, p.read_text()
        else:
            yield from _sources(d)


def test_passes_sched_and_ir_take_a_target_not_an_arch_name():
    found = [hit for path, text in _target_taker_sources() for hit in arch_parameters(path, text)]
    assert not found, "arch-name parameters (take a Target):\n" + "\n".join(found)


def test_the_arch_parameter_check_finds_them():
    src = ("def a(arch: str): pass\ndef b(x, *, kernel_arch=None): pass\n"
           "def c(target: Target, name: str): pass\nclass K:\n    def __init__(self, archname: str): pass\n"
           "f = lambda arch: arch\ndef d(arches): pass\n")
    hits = arch_parameters("m.py", src)
    assert [h.split(":")[1] for h in hits] == ["1", "2", "5", "6"], hits
    assert len(list(_target_taker_sources())) > 10


def test_the_arch_check_finds_one():
    src = ('"""doc gfx942"""\n# gfx950 comment\nx = "gfx950"\ny = f"{x} on gfx942"\n'
           'def f():\n    """gfx942 prose"""\n    return {"gfx942": 1}\n')
    hits = arch_literals("m.py", src)
    assert [h.split(":")[1] for h in hits] == ["3", "4", "7"], hits

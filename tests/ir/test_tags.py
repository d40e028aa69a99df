"""Declared tags (asmgen.ir.tags): ``Block.add`` / ``end_with`` / ``tag`` refuse a tag the kernel's
kind does not declare, naming the tag and the kind; a declared string is stored as its member;
families keep their index range; a vocabulary refuses a spelling declared twice."""
import pytest

from asmgen.ir import CoreTag, IRError, KernelIR, TagEnum, TagFamily, TagVocabulary, UnknownTag, is_declared
from asmgen.kinds.attention.tags import ATTN_TAGS, AttnTag
from asmgen.kinds.common.tags import CommonTag
from asmgen.kinds.gemm.tags import GEMM_TAGS, GemmTag, lr
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm


def _gemm_kernel():
    k = KernelIR(target_of("gfx942"), "t", tags=GEMM_TAGS)
    return k, k.vreg("v")


def test_unknown_tag_raises_naming_the_tag_and_the_kind():
    k, x = _gemm_kernel()
    with pytest.raises(UnknownTag, match=r"tag 'lr_c' of v_mov_b32 in block prologue is not "
                                         r"declared by kind gemm \(its tags: .*lr_a, lr_b"):
        k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), ("addr", "lr_c"))
    assert not k.prologue.nodes                     # nothing was added
    assert issubclass(UnknownTag, IRError)


def test_another_kinds_member_is_unknown_even_when_spelled_alike():
    k, x = _gemm_kernel()
    with pytest.raises(UnknownTag, match=r"'gr_k' .* kind gemm"):
        k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), (AttnTag.GR_K,))

    class Other(TagEnum):
        LR_A = "lr_a"       # same spelling as GemmTag.LR_A, but not gemm's declaration

    assert "lr_a" in GEMM_TAGS and GemmTag.LR_A in GEMM_TAGS and Other.LR_A not in GEMM_TAGS
    with pytest.raises(UnknownTag, match=r"'lr_a' .* kind gemm"):
        k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), (Other.LR_A,))


def test_declared_strings_are_stored_as_their_members():
    k, x = _gemm_kernel()
    n = k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), ("addr", lr("b"), "mfma"))
    assert n.tags == {"addr", "lr_b", "mfma"}
    assert {type(t) for t in n.tags} == {CoreTag, GemmTag, CommonTag}
    assert all(is_declared(t) for t in n.tags) and not is_declared("addr")


def test_terminator_and_retag_are_checked_too():
    k, x = _gemm_kernel()
    with pytest.raises(UnknownTag, match=r"'brnch' of s_cmp_eq_u32 ending block prologue .* gemm"):
        k.prologue.end_with(Instr("s_cmp_eq_u32", (k.vreg("s"), Imm(0))), ("brnch",))
    n = k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), ("addr",))
    k.prologue.tag([n], GemmTag.PHASE_M)
    assert n.tags == {"addr", "phase_m"}
    with pytest.raises(UnknownTag, match=r"'phase_x' of block prologue .* gemm"):
        k.prologue.tag([n], "phase_x")
    with pytest.raises(UnknownTag, match=r"'nopp' of s_nop .* gemm"):
        k.new_node(Instr("s_nop", (Imm(0),)), {"nopp"})      # what a pass inserts is checked


def test_a_kernel_needs_a_vocabulary():
    with pytest.raises(TypeError):
        KernelIR(target_of("gfx942"), "t")
    with pytest.raises(IRError, match=r"tags=\('addr',\) is not a TagVocabulary"):
        KernelIR(target_of("gfx942"), "t", tags=("addr",))


def test_families_keep_the_check():
    stage = TagFamily("stage", 3)
    buf = TagFamily("buf", 2)
    vocab = TagVocabulary("fam", families=(stage,))
    k = KernelIR(target_of("gfx942"), "t", tags=vocab)
    x = k.vreg("v")
    n = k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), (stage[2], "stage1"))
    assert n.tags == {"stage2", "stage1"} and {t.index for t in n.tags} == {1, 2}
    with pytest.raises(UnknownTag, match=r"tag family 'stage' has indices 0..2, not 3"):
        stage[3]
    with pytest.raises(UnknownTag, match=r"'stage3' .* kind fam \(its tags: .*stage0..stage2"):
        k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), ("stage3",))
    with pytest.raises(UnknownTag, match=r"'buf0' .* kind fam"):           # an undeclared family
        k.prologue.add(Instr("v_mov_b32", (x, Imm(0))), (buf[0],))


def test_a_spelling_declared_twice_is_refused():
    class Dup(TagEnum):
        WAIT = "wait"

    with pytest.raises(IRError, match=r"'wait' is declared twice"):
        TagVocabulary("dup", Dup)
    with pytest.raises(IRError, match=r"'mfma0' is declared twice"):
        class M(TagEnum):
            MFMA0 = "mfma0"
        TagVocabulary("dup", M, families=(TagFamily("mfma", 2),))


def test_the_kinds_vocabularies():
    assert GEMM_TAGS.kind == "gemm" and ATTN_TAGS.kind == "attention"
    for v in (GEMM_TAGS, ATTN_TAGS):
        assert {str(t) for t in CoreTag} <= set(v.names())
        assert {str(t) for t in CommonTag} <= set(v.names())
    assert "lr_a" not in ATTN_TAGS and "lr_k" not in GEMM_TAGS
    with pytest.raises(UnknownTag, match=r"operand 'c'"):
        lr("c")

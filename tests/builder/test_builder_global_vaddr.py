"""GLOBAL vaddr width follows saddr: 64-bit address with ``off``, 32-bit offset beside an SGPR pair."""
import pytest

from asmgen.builder import KernelBuilder
from asmgen.errors import BuildError
from isa.operands import s, v


def test_vaddr_is_one_dword_beside_an_sgpr_saddr():
    b = KernelBuilder("gfx942")
    ins = b.emit("global_store_dword", v(3), v(4), s(4, 2))
    assert str(ins) == "global_store_dword v3, v4, s[4:5]"


def test_vaddr_is_two_aligned_dwords_with_saddr_off():
    b = KernelBuilder("gfx942")
    assert str(b.emit("global_store_dword", v(2, 2), v(4), "off")) == "global_store_dword v[2:3], v4, off"
    with pytest.raises(BuildError, match="vaddr is 1 dword.*it needs 2"):
        b.emit("global_store_dword", v(3), v(4), "off")
    with pytest.raises(BuildError, match="vaddr = v\\[3:4\\].*not a multiple of 2"):
        b.emit("global_store_dword", v(3, 2), v(4), "off")

"""A small MessagePack decoder (enough for the NT_AMDGPU_METADATA note of a code object).

Follows the MessagePack spec (github.com/msgpack/msgpack/blob/master/spec.md): nil, bool, ints,
float32/64, str, bin, array, map; ext types are returned as ``(type, bytes)``. No encoder, no
dependency. Map keys that are lists are turned into tuples so they stay hashable.
"""
from __future__ import annotations

import struct
from typing import Any

from .errors import CodeObjectError


class _Reader:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.pos = 0

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.buf):
            raise CodeObjectError(f"msgpack: {n} bytes wanted at offset {self.pos}, only "
                                  f"{len(self.buf) - self.pos} left")
        out = self.buf[self.pos:end]
        self.pos = end
        return out

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(">" + fmt, self.take(struct.calcsize(">" + fmt)))[0]


# Fixed-width formats: first byte -> struct code of the payload.
_FIXED = {0xcc: "B", 0xcd: "H", 0xce: "I", 0xcf: "Q", 0xd0: "b", 0xd1: "h", 0xd2: "i", 0xd3: "q",
          0xca: "f", 0xcb: "d"}
_LEN = {1: "B", 2: "H", 4: "I"}


def _decode(r: _Reader, depth: int) -> Any:
    if depth > 64:
        raise CodeObjectError("msgpack: nesting deeper than 64")
    b = r.take(1)[0]
    if b <= 0x7f:
        return b
    if b >= 0xe0:
        return b - 0x100
    if 0x80 <= b <= 0x8f:
        return _map(r, b & 0x0f, depth)
    if 0x90 <= b <= 0x9f:
        return [_decode(r, depth + 1) for _ in range(b & 0x0f)]
    if 0xa0 <= b <= 0xbf:
        return _str(r.take(b & 0x1f), r.pos)
    if b == 0xc0:
        return None
    if b == 0xc2:
        return False
    if b == 0xc3:
        return True
    if b in _FIXED:
        return r.unpack(_FIXED[b])
    if b in (0xc4, 0xc5, 0xc6):                     # bin 8/16/32
        return bytes(r.take(r.unpack(_LEN[1 << (b - 0xc4)])))
    if b in (0xd9, 0xda, 0xdb):                     # str 8/16/32
        return _str(r.take(r.unpack(_LEN[1 << (b - 0xd9)])), r.pos)
    if b in (0xdc, 0xdd):                           # array 16/32
        n = r.unpack("H" if b == 0xdc else "I")
        return [_decode(r, depth + 1) for _ in range(n)]
    if b in (0xde, 0xdf):                           # map 16/32
        return _map(r, r.unpack("H" if b == 0xde else "I"), depth)
    if b in (0xd4, 0xd5, 0xd6, 0xd7, 0xd8):         # fixext 1/2/4/8/16
        typ = r.unpack("b")
        return (typ, bytes(r.take(1 << (b - 0xd4))))
    if b in (0xc7, 0xc8, 0xc9):                     # ext 8/16/32
        n = r.unpack(_LEN[1 << (b - 0xc7)])
        typ = r.unpack("b")
        return (typ, bytes(r.take(n)))
    raise CodeObjectError(f"msgpack: byte 0x{b:02x} at offset {r.pos - 1} is not a valid type")


def _str(raw: bytes, pos: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CodeObjectError(f"msgpack: string ending at offset {pos} is not UTF-8") from exc


def _hashable(k: Any) -> Any:
    if isinstance(k, list):
        return tuple(_hashable(x) for x in k)
    if isinstance(k, dict):
        return tuple(sorted((_hashable(a), _hashable(b)) for a, b in k.items()))
    return k


def _map(r: _Reader, n: int, depth: int) -> dict:
    out = {}
    for _ in range(n):
        k = _hashable(_decode(r, depth + 1))
        out[k] = _decode(r, depth + 1)
    return out


def unpackb(data: bytes) -> Any:
    """Decode one MessagePack object that fills ``data`` (trailing bytes are an error)."""
    r = _Reader(bytes(data))
    obj = _decode(r, 0)
    if r.pos != len(r.buf):
        raise CodeObjectError(f"msgpack: {len(r.buf) - r.pos} trailing bytes after the object")
    return obj

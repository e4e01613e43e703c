"""Read what a kernel's parameter list looks like from the cubin nvcc wrote, so a manifest entry
whose .cu has another signature is refused at build time in one line, instead of launching with
misplaced arguments and faulting or failing verification on the GPU.

A cubin is an ELF file; per entry point, section `.nv.info.ENTRY` holds attribute records
(format byte, attribute byte, then a 2-byte value, or for the "sized" format a 2-byte length and
that many bytes). EIATTR_KPARAM_INFO (0x17) describes one parameter: 4 bytes of index, 2 of
ordinal, 2 of offset in the parameter bank, 4 of flags whose top 14 bits are its size in bytes.
"""

from __future__ import annotations

import struct

from ..errors import GemmprofError

_KPARAM_INFO = 0x17
_SIZED = 0x04  # EIFMT_SVAL: a length-prefixed value


def _sections(elf: bytes) -> dict[str, bytes]:
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        raise GemmprofError("not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]

    def name(offset: int) -> str:
        start = names + offset
        return elf[start:elf.index(b"\0", start)].decode("ascii", "replace")

    return {name(h[0]): elf[h[4]:h[4] + h[5]] for h in headers}


def parameter_sizes(cubin: bytes, entry: str) -> list[int] | None:
    """Sizes in bytes of `entry`'s parameters in order, or None when the cubin has no parameter
    records for it (a kernel without parameters has none either)."""
    body = _sections(cubin).get(f".nv.info.{entry}")
    if body is None:
        return None
    params: dict[int, int] = {}
    i = 0
    while i + 4 <= len(body):
        fmt, attr = body[i], body[i + 1]
        if fmt == _SIZED:
            length, = struct.unpack_from("<H", body, i + 2)
            value, i = body[i + 4:i + 4 + length], i + 4 + length
        else:
            value, i = b"", i + 4
        if attr == _KPARAM_INFO and len(value) >= 12:
            _, ordinal, _, flags = struct.unpack_from("<IHHI", value)
            params[ordinal] = flags >> 18
    return [params[k] for k in sorted(params)] if params else None

"""Connections from shut-out addresses dropped by the kernel, before the server hears of them.

A shut-out address (:mod:`station.web.shutout`) used to cost the table PC an accept and a close
per attempt: about 115 µs of the console's interpreter each, 1.15 CPU seconds for a flood of
10,000 (docs/benchmarks.md, "The console under load with the shut-out"). A classic BPF program
on the listening socket (``SO_ATTACH_FILTER``, Linux) drops the packets of those addresses as
they arrive: a SYN from one never becomes a connection, so nothing of the server runs for it,
and the sender is left waiting for an answer that does not come, as a firewall's drop would
leave it (it retries for a while, at almost no cost to either side).

The program is rebuilt and attached again whenever the set of shut-out addresses changes (the
kernel swaps it in at once). It reads the source address of the IP header (IPv4, and IPv6 by
its four words; an IPv4 peer of a dual-stack socket, ``::ffff:a.b.c.d``, is matched by its
IPv4 header). Accepted connections keep the program they were accepted under, which cannot
name their own peer; the server closes the open connections of an address it shuts out.

Where the kernel has no socket filters (not Linux, or a refusal), :class:`SourceFilter` says
so once in the log and the server goes on closing those connections as they are accepted.
"""

from __future__ import annotations

import ctypes
import ipaddress
import logging
import socket
import struct
from collections.abc import Iterable
from typing import Protocol

log = logging.getLogger(__name__)

#: ``setsockopt`` options of Linux's socket filters (asm-generic/socket.h).
SO_ATTACH_FILTER = 26
SO_DETACH_FILTER = 27
#: At most this many addresses in the program (the kernel takes up to 4,096 instructions; an
#: IPv6 address takes 9). Addresses beyond it are still closed as they are accepted.
MAX_FILTERED = 400

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_LD_B_ABS = 0x30
_RSH_K = 0x74
_JEQ_K = 0x15
_JA = 0x05
_RET_K = 0x06
#: The offset that makes a load read the network (IP) header rather than the transport's.
_NET = -0x100000
_KEEP = 0xFFFFFFFF  # a socket filter's answer is the bytes to keep: all of them
_DROP = 0


def _insn(code: int, k: int = 0, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _words(address: ipaddress.IPv6Address) -> list[int]:
    packed = address.packed
    return [int.from_bytes(packed[i:i + 4], "big") for i in range(0, 16, 4)]


def drop_program(addresses: Iterable[str]) -> list[bytes]:
    """The instructions of a program that drops every packet from ``addresses`` and keeps the
    rest. Each comparison jumps at most a few instructions ahead, so any number of addresses
    fits the 8-bit jumps of classic BPF; the two families' lists are reached by ``ja``."""
    v4: list[int] = []
    v6: list[list[int]] = []
    for text in addresses:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            continue  # not an IP address (a peer name the server did not make): nothing to match
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if isinstance(address, ipaddress.IPv4Address):
            v4.append(int(address))
        else:
            v6.append(_words(address))
    ipv4_list: list[bytes] = [_insn(_LD_W_ABS, _NET + 12)]  # the IPv4 source address
    for value in v4:
        ipv4_list += [_insn(_JEQ_K, value, 0, 1), _insn(_RET_K, _DROP)]
    ipv4_list.append(_insn(_RET_K, _KEEP))
    ipv6_list: list[bytes] = []
    for words in v6:  # the IPv6 source address: four words from byte 8
        for i, word in enumerate(words):
            skip = 2 * (3 - i) + 1  # past the remaining words' loads and jumps and the drop
            ipv6_list += [_insn(_LD_W_ABS, _NET + 8 + 4 * i), _insn(_JEQ_K, word, 0, skip)]
        ipv6_list.append(_insn(_RET_K, _DROP))
    ipv6_list.append(_insn(_RET_K, _KEEP))
    head = [
        _insn(_LD_B_ABS, _NET),  # the IP version, in the first byte's high nibble
        _insn(_RSH_K, 4),
        _insn(_JEQ_K, 4, 0, 1),
        _insn(_JA, 3),  # to the IPv4 list (past the next three)
        _insn(_JEQ_K, 6, 0, 1),
        _insn(_JA, 1 + len(ipv4_list)),  # to the IPv6 list (past the keep and the IPv4 list)
        _insn(_RET_K, _KEEP),
    ]
    return head + ipv4_list + ipv6_list


class _Listening(Protocol):
    """A listening socket: a :class:`socket.socket` or the one asyncio's server lends out."""

    def setsockopt(self, level: int, optname: int, value: int | bytes, /) -> None: ...


class SourceFilter:
    """The drop program of one listening socket: :meth:`drop_from` the addresses shut out now."""

    def __init__(self, sock: _Listening) -> None:
        self._sock = sock
        self.working = True
        self.dropping: frozenset[str] = frozenset()
        self.attachments = 0  # programs attached so far (each change of the set is one)

    def drop_from(self, addresses: Iterable[str]) -> None:
        """Drop the packets of ``addresses`` (at most :data:`MAX_FILTERED`) from now on, and no
        others. An empty set takes the program off."""
        wanted = frozenset(sorted(addresses)[:MAX_FILTERED])
        if not self.working or wanted == self.dropping:
            return
        try:
            if wanted:
                program = b"".join(drop_program(wanted))
                buffer = ctypes.create_string_buffer(program, len(program))
                fprog = struct.pack("HL", len(program) // 8, ctypes.addressof(buffer))
                self._sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
            else:
                self._sock.setsockopt(socket.SOL_SOCKET, SO_DETACH_FILTER, 0)
        except (OSError, ValueError) as exc:
            self.working = False
            log.warning("the kernel cannot drop shut-out addresses (%s): their connections are closed as accepted",
                        exc)
            return
        self.dropping = wanted
        self.attachments += 1


__all__ = ["MAX_FILTERED", "SourceFilter", "drop_program"]

"""Dense codes of 64-bit key pairs (step 1 of the order-effects kernels,
:mod:`perfwarehouse.kernels.order_effects`): :func:`dense_codes` numbers the rows'
configurations 0..C-1 with an open-addressing hash of a 64-bit key per (campaign,
hardware type, configuration), seeded with the configurations' keys so that codes are
their row numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True)
def _code_keys(
    first: np.ndarray, second: np.ndarray, start: int, codes: np.ndarray, slot_first: np.ndarray,
    slot_second: np.ndarray, slot_code: np.ndarray, n_unique: int, bits: int,
) -> tuple[int, int]:
    """Code rows ``start:`` until the table is an eighth full; returns (next row, n_unique)."""
    mask = slot_code.size - 1
    shift = np.uint64(64 - bits)
    limit = slot_code.size // 8
    for i in range(start, first.size):
        a = first[i]
        b = second[i]
        h = np.int64(((a ^ (b * _MIX)) * _GOLDEN) >> shift)
        code = slot_code[h]
        while code >= 0 and (slot_first[h] != a or slot_second[h] != b):
            h = (h + 1) & mask
            code = slot_code[h]
        if code < 0:
            code = n_unique
            slot_code[h] = code
            slot_first[h] = a
            slot_second[h] = b
            n_unique += 1
        codes[i] = code
        if n_unique >= limit:
            return i + 1, n_unique
    return first.size, n_unique


@njit(cache=True)
def _grow(slot_first: np.ndarray, slot_second: np.ndarray, slot_code: np.ndarray, bits: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hash table re-inserted into one of 2**bits slots."""
    new_first = np.zeros(1 << bits, np.uint64)
    new_second = np.zeros(1 << bits, np.uint64)
    new_code = np.full(1 << bits, -1, np.int32)
    mask = (1 << bits) - 1
    for s in range(slot_code.size):
        if slot_code[s] < 0:
            continue
        a, b = slot_first[s], slot_second[s]
        h = np.int64(((a ^ (b * _MIX)) * _GOLDEN) >> np.uint64(64 - bits))
        while new_code[h] >= 0:
            h = (h + 1) & mask
        new_code[h] = slot_code[s]
        new_first[h] = a
        new_second[h] = b
    return new_first, new_second, new_code


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous view of ``a``: numba compiles a kernel once per signature,
    and Arrow hands out read-only arrays where a filtered or concatenated column is
    writable; passing every input read-only compiles one signature, not 2^inputs."""
    view = np.ascontiguousarray(a).view()
    view.flags.writeable = False
    return view


def dense_codes(
    first: np.ndarray, second: np.ndarray, seed_first: np.ndarray, seed_second: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct pairs ``(first[i], second[i])`` (uint64) 0..K-1.

    The seed pairs are numbered first, in order (distinct seeds get 0..S-1), so
    a row whose code is below S matches the seed of that number; the other
    pairs follow in order of first appearance. Pass the same array twice to
    code single keys, and empty seeds for none.

    Returns ``(codes int32[n], first_row int64[K])``: ``first_row[k]`` is the
    first row with code k (-1 for a seed no row has).
    Open addressing with linear probing; the table doubles when it is an eighth
    full (a sparse table keeps probes short and branches predictable).
    """
    return _dense_codes(*(_readonly(a) for a in (first, second, seed_first, seed_second)))


@njit(cache=True)
def _dense_codes(
    first: np.ndarray, second: np.ndarray, seed_first: np.ndarray, seed_second: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    bits = 10
    while (1 << bits) < 8 * seed_first.size + 8:
        bits += 1
    slot_first = np.zeros(1 << bits, np.uint64)
    slot_second = np.zeros(1 << bits, np.uint64)
    slot_code = np.full(1 << bits, -1, np.int32)
    seed_codes = np.empty(seed_first.size, np.int32)
    n_unique = 0
    done, n_unique = _code_keys(seed_first, seed_second, 0, seed_codes, slot_first, slot_second,
                                slot_code, n_unique, bits)
    codes = np.empty(first.size, np.int32)
    row = 0
    while True:
        done, n_unique = _code_keys(first, second, row, codes, slot_first, slot_second,
                                    slot_code, n_unique, bits)
        if done >= first.size:
            break
        row = done
        bits += 1
        slot_first, slot_second, slot_code = _grow(slot_first, slot_second, slot_code, bits)
    first_row = np.full(n_unique, -1, np.int64)
    for i in range(first.size):
        if first_row[codes[i]] < 0:
            first_row[codes[i]] = i
    return codes, first_row

"""One pass over the bytes of a JSON Lines file, beside DuckDB's parse of it: does any
record have a top-level key outside a given set, a trailing comma, or a value of a known
key whose JSON type is not the plain one that key expects?

DuckDB's ``read_json`` with named columns drops every other top-level key in silence and
accepts ``[1, 2,]``; the native trial log keeps unknown keys (in ``attributes``) and
refuses trailing commas (:mod:`perfwarehouse.ingest.formats.jsonl`). Asking DuckDB for
the keys means parsing the file a second time (4-5 CPU s of the demo's 1 GB, as long as
the read itself); this scan answers the question at byte speed instead, and only a file
it flags pays for the exact pass. Likewise DuckDB's typed read converts what the reading
policy refuses (``true`` into a number column, a number into a text column): the
policy's checks in SQL cost 6-7 CPU s of that 1 GB, and a file whose every value has
its plain type (text a string, a number a number token, ``values`` an array of number
tokens, a flag ``true``/``false``; ``null`` anywhere) needs none of them.

The scan is conservative, never permissive: it follows strings (with their escapes) and
nesting per line, and a string at depth 1 right after ``{`` or ``,`` is taken as a key.
A key that is not byte-for-byte one of the known keys, or that holds an escape (it may
decode to a known key or to another), flags the file; so does a top-level array, whose
strings at depth 1 look like keys. A trailing comma is a ``,`` outside strings followed
by blanks and ``}`` or ``]``. A value's type is told by its first bytes (a number
starts with a digit, or ``-`` and a digit; ``null``, ``true``, ``false`` are those
words); anything else is not plain, nor is a file with an escaped key (when some key
has plain types). A newline ends a record: the state starts afresh on
every line, so the file can be given in pieces that end at a newline. A file that is not
JSON is DuckDB's to refuse; what the scan says of it does not matter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from numba import njit

UNKNOWN_KEY = 1
TRAILING_COMMA = 2
ODD_TYPE = 4  # a known key's value is not of a type its ``plain`` mask names

# the JSON types of a value, as bits of a key's ``plain`` mask (:func:`key_table`); an
# ARRAY is plain when each of its elements is a NUMBER
STRING, NUMBER, BOOLEAN, NULL, OBJECT, ARRAY = 1, 2, 4, 8, 16, 32
ANY = -1  # every type, nothing looked at (values read as JSON text)

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def key_table(keys: Iterable[str], plain: Mapping[str, int] | None = None,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The known keys for :func:`scan_lines`: (an open-addressing table of their FNV-1a
    hashes holding key numbers, -1 where empty; the keys' UTF-8 bytes end to end; the
    offsets of each key's bytes in them, one more than keys; each key's mask of plain
    types, :data:`ANY` for a key not in ``plain``)."""
    keys = list(keys)
    masks = np.array([(plain or {}).get(k, ANY) for k in keys], np.int64)
    encoded = [k.encode() for k in keys]
    size = 1 << max(4, (4 * len(encoded)).bit_length())
    table = np.full(size, -1, np.int64)
    for number, key in enumerate(encoded):
        slot = int(_fnv1a(key) & np.uint64(size - 1))
        while table[slot] >= 0:
            slot = (slot + 1) & (size - 1)
        table[slot] = number
    flat = np.frombuffer(b"".join(encoded), np.uint8).copy()
    offsets = np.cumsum([0] + [len(k) for k in encoded]).astype(np.int64)
    return table, flat, offsets, masks


def _fnv1a(data: bytes) -> np.uint64:
    h = int(_FNV_OFFSET)
    for byte in data:
        h = ((h ^ byte) * int(_FNV_PRIME)) & 0xFFFFFFFFFFFFFFFF
    return np.uint64(h)


@njit(cache=True, nogil=True)
def _known(buf: np.ndarray, start: int, end: int, h: np.uint64, table: np.ndarray,
           flat: np.ndarray, offsets: np.ndarray) -> int:
    """The number of the table's key ``buf[start:end]`` is (hash ``h``), else -1."""
    mask = table.size - 1
    slot = np.int64(h & np.uint64(mask))
    while table[slot] >= 0:
        k = table[slot]
        first = offsets[k]
        if offsets[k + 1] - first == end - start:
            same = True
            for j in range(end - start):
                if flat[first + j] != buf[start + j]:
                    same = False
                    break
            if same:
                return k
        slot = (slot + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def scan_lines(buf: np.ndarray, table: np.ndarray, flat: np.ndarray,
               offsets: np.ndarray, plain: np.ndarray) -> int:
    """The flags (``UNKNOWN_KEY | TRAILING_COMMA | ODD_TYPE``) of the JSON Lines records
    in ``buf`` (uint8), a whole number of lines (the last may lack its newline); the
    known keys and their plain types as made by :func:`key_table`. Each byte is looked at
    once; a string's bytes in a loop of their own, which looks only for its end."""
    flags = 0
    depth = 0
    expect_key = False  # the next string at depth 1 is a key
    comma = False  # a comma, then only blanks so far
    key = -1  # the typed key whose value comes after the next colon
    value_next = False  # the next byte that is not blank starts that key's value
    numbers = False  # inside a top-level array whose elements must be numbers
    element_next = False  # the next byte that is not blank starts one of its elements
    escaped_key = ODD_TYPE if (plain != ANY).any() else 0
    n = buf.size
    i = 0
    while i < n:
        c = buf[i]
        if (value_next or element_next) and c != 32 and c != 9 and c != 13 and c != 10:
            kind = _kind(buf, i, n)
            if value_next:
                value_next = False
                if kind & plain[key] == 0:
                    flags |= ODD_TYPE
                numbers = kind == ARRAY
                key = -1
            elif c != 93 and kind != NUMBER:  # an element, not the array's end
                flags |= ODD_TYPE
            element_next = False
        if c == 34:  # a string: find its end (or the line's, if it is broken)
            comma = False
            is_key = depth == 1 and expect_key
            expect_key = False
            escape = False
            j = i + 1
            while j < n:
                d = buf[j]
                if d == 34 or d == 10:
                    break
                if d == 92:  # backslash: the next byte is escaped
                    escape = True
                    j += 1
                j += 1
            if j >= n or buf[j] == 10:  # a broken line: what follows is the next line's
                i = j
                continue
            if is_key and escape:  # it may decode to any key, a typed one too
                flags |= UNKNOWN_KEY | escaped_key
            elif is_key:
                k = _known(buf, i + 1, j, _fnv1a_of(buf, i + 1, j), table, flat, offsets)
                if k < 0:
                    flags |= UNKNOWN_KEY
                elif plain[k] != ANY:
                    key = k
            i = j + 1
            continue
        if c == 10:  # a record ends: start afresh
            depth = 0
            expect_key = comma = value_next = numbers = element_next = False
            key = -1
        elif c == 58:  # :
            value_next = depth == 1 and key >= 0
        elif c == 123 or c == 91:  # { [
            depth += 1
            comma = False
            expect_key = depth == 1
            element_next = numbers and depth == 2
        elif c == 125 or c == 93:  # } ]
            if comma:
                flags |= TRAILING_COMMA
            depth -= 1
            comma = expect_key = False
            if depth < 2:
                numbers = element_next = False
        elif c == 44:  # ,
            comma = True
            expect_key = depth == 1
            element_next = numbers and depth == 2
            key = -1
        elif c != 32 and c != 9 and c != 13 and c != 12 and c != 11:
            comma = False
        i += 1
    return flags


@njit(cache=True, nogil=True)
def _kind(buf: np.ndarray, i: int, n: int) -> int:
    """The JSON type of the value that starts at ``buf[i]`` (0 when it is none of the
    plain ones: ``NaN``, ``-Infinity``, a bare word, broken JSON)."""
    c = buf[i]
    if c == 34:
        return STRING
    if 48 <= c <= 57 or (c == 45 and i + 1 < n and 48 <= buf[i + 1] <= 57):
        return NUMBER
    if c == 123:
        return OBJECT
    if c == 91:
        return ARRAY
    if _word(buf, i, n, _NULL):
        return NULL
    if _word(buf, i, n, _TRUE) or _word(buf, i, n, _FALSE):
        return BOOLEAN
    return 0


_NULL = np.frombuffer(b"null", np.uint8)
_TRUE = np.frombuffer(b"true", np.uint8)
_FALSE = np.frombuffer(b"false", np.uint8)


@njit(cache=True, nogil=True)
def _word(buf: np.ndarray, i: int, n: int, word: np.ndarray) -> bool:
    """Whether ``word``'s bytes start at ``buf[i]``."""
    if i + word.size > n:
        return False
    for j in range(word.size):
        if buf[i + j] != word[j]:
            return False
    return True


@njit(cache=True, nogil=True)
def _fnv1a_of(buf: np.ndarray, start: int, end: int) -> np.uint64:
    """FNV-1a of ``buf[start:end]`` (as :func:`_fnv1a` of those bytes)."""
    h = _FNV_OFFSET
    for j in range(start, end):
        h = (h ^ np.uint64(buf[j])) * _FNV_PRIME
    return h

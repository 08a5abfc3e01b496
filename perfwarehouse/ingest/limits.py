"""The limits every importer applies, in one place (docs/reliability.md, "Limits").

Each is far beyond any real input and small enough that what passes cannot exhaust the
machine or overflow the arithmetic after it. A record past a limit is refused (or
quarantined) with one line naming the file, the line and the rule; never a traceback.
"""

from __future__ import annotations

#: A measured value is 0 or of magnitude within [VALUE_MIN, VALUE_MAX] (rule
#: ``value-range``). Physical quantities in any unit lie far inside (Planck time 5e-44 s,
#: 1e80 atoms in the universe); the bounds keep what the analyses compute finite: a
#: square (1e200), a sum of 1e12 values (1e112), a ratio of two values (1e200). Values
#: near 1.7e308 made a stored median ``inf`` (the mean of the two middle values).
VALUE_MAX = 1e100
VALUE_MIN = 1e-100

#: A number in a source file has at most this many digits (sign, point and exponent
#: aside; rule ``huge-number``): a float has 17 significant digits and the largest
#: 64-bit integer 19, so 100 loses nothing; Python refuses to convert an int of more than
#: 4,300 digits (a traceback before) and a long one costs quadratic time.
NUMBER_MAX_DIGITS = 100

#: Names: a campaign or hardware type is a directory name (hive-encoded) of at most 200
#: bytes; a benchmark name is not a path component and real ones are long (C++ templates,
#: JMH parameter lists): up to 4,096 characters; the other names up to 200.
NAME_MAX = 200
BENCHMARK_MAX = 4096

#: A compressed input (gzip) is decompressed to at most this many bytes (rule
#: ``too-large``): 0.5 MB of gzip expanded to 1.1 GB in memory before.
DECOMPRESSED_MAX = 1 << 30  # 1 GiB

#: An input file an importer reads whole is at most this many bytes (rule ``too-large``,
#: refused before it is read). ``ingest auto`` tells a file's format from its first 64 KiB
#: and reads whole only the files a format claims (a stray 3 GB file below a walked
#: directory cost 3.2 GB of memory before). The largest real inputs (JMeter JTLs, Gatling
#: logs of millions of requests) are hundreds of MB; compressed ones are bounded by
#: :data:`DECOMPRESSED_MAX` after decompression.
INPUT_MAX = 1 << 30  # 1 GiB

#: A repeat count in a histogram (JMH rawDataHistogram: value -> occurrences) expands to
#: at most this many values per trial (rule ``too-many-values``): a 2.6 KB file saying a
#: value occurs 3e7 times took 2.3 GB and 100 s; 1e12 raised MemoryError.
VALUES_PER_TRIAL_MAX = 10_000_000

#: the parameters of ``sql/staging/validate.sql`` that are limits of this module
VALIDATE_PARAMETERS: dict[str, object] = {
    "value_min": VALUE_MIN, "value_max": VALUE_MAX,
    "name_max": NAME_MAX, "benchmark_max": BENCHMARK_MAX,
}

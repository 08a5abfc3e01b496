"""The JSON reading policy, under the name the ingest modules import it by.

It lives in :mod:`perfwarehouse.policies.json_text` (timestamps in
:mod:`perfwarehouse.policies.timestamps`), the pure package the agent imports too.
"""

from perfwarehouse.policies import PolicyError
from perfwarehouse.policies.json_text import (
    MAX_DEPTH,
    check_record_keys,
    check_value,
    loads_line,
    loads_text,
    repeated_keys,
)
from perfwarehouse.policies.timestamps import (
    FAST_TIMESTAMP_RE,
    MAX_TIME,
    MIN_TIME,
    TIMESTAMP_RE,
    in_range,
    parse_timestamp,
)

__all__ = ["FAST_TIMESTAMP_RE", "MAX_DEPTH", "MAX_TIME", "MIN_TIME", "TIMESTAMP_RE",
           "PolicyError", "check_record_keys", "check_value", "in_range", "loads_line",
           "loads_text", "parse_timestamp", "repeated_keys"]

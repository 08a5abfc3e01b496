"""One parser per input format (pure: bytes or tables in, trial records out)."""

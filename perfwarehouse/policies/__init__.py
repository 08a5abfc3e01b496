"""The rules both sides of the package agree on, with no side effects: how a JSON text
is read (:mod:`.json_text`) and which times are valid (:mod:`.timestamps`).

The worker side (:mod:`perfwarehouse.agent`) and the warehouse side
(:mod:`perfwarehouse.ingest`) import these instead of each other, so that the agent
checks a ``--revision-time`` by the very rule the importer applies to it. The modules
import only the standard library and orjson (``tests/test_layering.py``).
"""

from __future__ import annotations


class PolicyError(ValueError):
    """A value breaks a policy; ``rule`` names which rule (the name a problem carries)."""

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(detail)
        self.rule = rule
        self.detail = detail

"""One exception tree for everything a user can cause.

The CLI prints ``str(error)`` on one line and exits with code 1; nothing below
:class:`PerfwarehouseError` ever reaches the user as a traceback. Messages say
what went wrong *and* what to do about it.
"""

from __future__ import annotations


class PerfwarehouseError(Exception):
    """Base of every expected, user-facing error."""


class UsageError(PerfwarehouseError):
    """A parameter or argument that cannot be honoured."""


class WarehouseError(PerfwarehouseError):
    """The warehouse directory is missing, corrupt or of an unknown version."""


class WarehouseBusy(WarehouseError):
    """Another process holds the warehouse; retryable (``Transient``)."""

    transient = True


class IngestError(PerfwarehouseError):
    """A batch was refused; nothing landed."""


class TrialParseError(IngestError):
    """One input record breaks one rule.

    Parameters
    ----------
    source:
        File (or URL) the record came from.
    line:
        1-based line (or data row) number in ``source``; 0 when the problem is
        about the source as a whole.
    rule:
        Short name of the rule that was broken (``non-finite``, ``missing-key`` …).
    detail:
        Human explanation, including the offending value.
    """

    def __init__(self, source: str, line: int, rule: str, detail: str) -> None:
        self.source = source
        self.line = line
        self.rule = rule
        self.detail = detail
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: [{rule}] {detail}")


class ConflictError(IngestError):
    """A trial already in the warehouse arrived again with different values."""


class AgentError(PerfwarehouseError):
    """A collector agent could not be reached or answered wrongly."""


class TransientAgentError(AgentError):
    """A network failure worth retrying."""

    transient = True


class SegmentChangedError(AgentError):
    """A spool segment no longer matches the cursor (rewritten or truncated)."""


class AnalysisError(PerfwarehouseError):
    """A job could not run on the data it was given."""

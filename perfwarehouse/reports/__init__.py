"""The registry of reports (``perfwarehouse report NAME``), in the order the demo writes them."""

from __future__ import annotations

from typing import Any

REPORTS: tuple[Any, ...] = ()

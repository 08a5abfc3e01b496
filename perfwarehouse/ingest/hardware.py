"""Deciding a node's hardware type from its id."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from perfwarehouse.config import data_dir
from perfwarehouse.errors import UsageError

MAP_NAME = "hardware_types.toml"
_TRAILING_NUMBER = re.compile(r"^(.*?)(?:-\d+|\d+)$")


@dataclass(frozen=True)
class HardwareTypeRules:
    """``given`` wins; else the longest matching prefix; else the id without trailing digits."""

    prefixes: dict[str, str] = field(default_factory=dict)
    given: str | None = None

    def resolve(self, node_id: str) -> tuple[str, str]:
        """``(hardware type, rule used)`` for ``node_id``."""
        if self.given:
            return self.given, "given"
        for prefix in sorted(self.prefixes, key=len, reverse=True):
            if node_id.startswith(prefix):
                return self.prefixes[prefix], f"prefix-map:{prefix}"
        match = _TRAILING_NUMBER.match(node_id)
        stem = match.group(1) if match and match.group(1) else node_id
        return stem, "node-id"


def default_map_path() -> Path:
    """``./ingest/hardware_types.toml`` if present, else the copy shipped with perfwarehouse."""
    local = Path("ingest") / MAP_NAME
    return local if local.is_file() else data_dir("ingest") / MAP_NAME


def load_rules(map_path: Path | None = None, given: str | None = None) -> HardwareTypeRules:
    path = map_path or default_map_path()
    if not path.is_file():
        if map_path:
            raise UsageError(f"hardware type map {path} does not exist")
        return HardwareTypeRules(given=given)
    try:
        content = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    prefixes = content.get("prefixes", {})
    if not isinstance(prefixes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in prefixes.items()
    ):
        raise UsageError(f"{path}: [prefixes] must map node-id prefixes to type names")
    return HardwareTypeRules(prefixes=dict(prefixes), given=given)

"""Shared fixtures: real warehouses in temporary directories, the OrderSage fixtures,
small generated campaigns, and a way to run the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.warehouse.store import Warehouse

REPO = Path(__file__).resolve().parent.parent
ORDERSAGE = REPO / "tests" / "fixtures" / "ordersage"
ORDERSAGE_DIRS = {
    "memcached": ORDERSAGE / "20211012_21:02:01_results",   # Table 3, 2021 layout
    "npbench": ORDERSAGE / "20221005_12:13:03_results",     # Table 4
    "ufs": ORDERSAGE / "20221012_19:59:50_results",         # Table 5
}


@pytest.fixture
def warehouse(tmp_path: Path) -> Warehouse:
    """An empty (not yet created) warehouse in a temporary directory."""
    return Warehouse(tmp_path / "warehouse", lock_timeout_s=5.0)


@pytest.fixture(scope="session")
def small_longterm(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2 % ordersage-longterm campaign as JSON Lines (with its .truth.json)."""
    out = tmp_path_factory.mktemp("gen") / "longterm.jsonl"
    generate_to_file("ordersage-longterm", out, seed=7, scale=0.02)
    return out


@pytest.fixture(scope="session")
def small_laaber(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A laaber-cloud campaign with 10 instances per environment, as JSON Lines."""
    out = tmp_path_factory.mktemp("gen") / "laaber.jsonl"
    generate_to_file("laaber-cloud", out, seed=7, scale=0.2)
    return out


CliRunner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli(tmp_path: Path) -> CliRunner:
    """Run ``perfwarehouse ARGS`` as a real process (``--warehouse`` defaults to tmp_path/warehouse)."""

    def run(*args: str, warehouse: Path | None = None, check: bool = False,
            timeout: float = 600, extra_env: dict[str, str] | None = None,
            **kwargs: object) -> subprocess.CompletedProcess[str]:
        home = str(warehouse or tmp_path / "warehouse")
        env = {**os.environ, "PERFWAREHOUSE_HOME": home, **(extra_env or {})}
        result = subprocess.run(
            [sys.executable, "-m", "perfwarehouse", *args], capture_output=True, text=True,
            env=env, timeout=timeout, cwd=kwargs.pop("cwd", tmp_path), **kwargs)  # type: ignore[arg-type]
        if check and result.returncode != 0:
            raise AssertionError(f"perfwarehouse {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    return run

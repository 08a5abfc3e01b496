"""The ``perfwarehouse`` command line (:mod:`perfwarehouse.cli.main`; the entry point is
:func:`main`)."""

from perfwarehouse.cli.main import cli, main

__all__ = ["cli", "main"]

"""``python -m perfwarehouse``."""

import sys

from perfwarehouse.cli import main

sys.exit(main())

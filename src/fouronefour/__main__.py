"""``python -m fouronefour`` runs the ``fouronefour`` command."""

import sys

from .cli import main

sys.exit(main())

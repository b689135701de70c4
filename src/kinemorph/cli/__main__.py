"""``python -m kinemorph.cli``: the same as the ``kinemorph`` command."""

import sys

from . import main

sys.exit(main())

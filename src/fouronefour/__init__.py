"""414, the team card game from Northeast China.

>>> import fouronefour as ff
>>> ff.kind("334455")
<Kind.DOUBLE_DRAGON: 'double_dragon'>

The package's names are the engine's (:mod:`fouronefour.engine`), listed there once.
"""

from .engine import *  # noqa: F403 (what it brings is the engine's __all__, below)
from .engine import __all__ as __all__

__version__ = "0.1.0"

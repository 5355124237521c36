"""ISD unit data under its first name: everything lives in ``troops.py`` (re-exported here).

Both names are kept so nobody's import breaks; new code should import ``troops``. (The geometry
engine's reading of a base's traits is ``pieces.py``.)
"""

from engine.rulesets.italia.troops import *  # noqa: F401,F403
from engine.rulesets.italia.troops import __all__ as _troops_all  # noqa: F401

__all__ = list(_troops_all)

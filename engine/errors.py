"""Errors raised by the rules engine; all are user-facing `CampoInputError`s."""

from __future__ import annotations

from vision.errors import CampoInputError, FileFormatError


class ScenarioError(FileFormatError):
    """A scenario is malformed or names things the ruleset does not know."""


class UnknownRulesetError(ScenarioError):
    """The scenario's `ruleset` is not one the engine has."""


class UnknownBaseError(CampoInputError, KeyError):
    """A base id that the game state does not hold."""

    def __str__(self) -> str:  # KeyError would quote the message
        return CampoInputError.__str__(self)

"""Rulesets: one package per rulebook (data, tables, settings, verdicts), listed in
`campo.engine.registry`."""

from campo.engine.registry import get_ruleset, ruleset_names

__all__ = ["get_ruleset", "ruleset_names"]

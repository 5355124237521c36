"""L'Italia s'e desta! (ISD): settings, tables, unit data and per-shot/per-melee modifiers.

The Italian text (shared/rules/seeds/italia-se-desta.it.txt) is authoritative; every value cites
its section (ISD §n, ISD ManTab, ISD Lists, ISD A<n> for a proposed reading).
"""

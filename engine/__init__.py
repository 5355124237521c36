"""The rules engine: scenario in, verdicts out (table mm in, rules units out).

Public entry points::

    engine.analyze(scenario) -> dict          # what `campo analyze --json` prints
    engine.load_scenario(path) -> Scenario
    engine.overlay_geometry(scenario, base_id) -> dict   # arcs, bands, charge paths (mm)
    engine.GameState(scenario)                 # copy(), move(), legal_charges(), validate()
    engine.rulesets.get_ruleset(name) -> Ruleset
"""

from campo.engine.analysis import analyze, overlay_geometry
from campo.engine.results import Aspect, Band, Zone
from campo.engine.scenario import Scenario, parse_scenario
from campo.engine.scenario import load_scenario_file as load_scenario
from campo.engine.state import GameState, LegalCharges

__all__ = ["Aspect", "Band", "GameState", "LegalCharges", "Scenario", "Zone", "analyze",
           "load_scenario", "overlay_geometry", "parse_scenario"]

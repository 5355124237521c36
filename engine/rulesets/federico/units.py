"""Every number of the Federico rulebook, in one place: ranges, dice, classes, moves, fall-backs,
the modifier tables, the melee results, the commanders' values and the army's morale.

The verdicts, the movement allowance, the quick reference (`reference.py`), the docs
(`doc_tables.py`) and the settings' defaults read these; no other module writes a rulebook
number. Each value cites its Italian heading (shared/rules/seeds/federico.it.txt is
authoritative) and quotes the phrase it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_CM = 10.0   # Federico "Raggio di tiro": distances in «CM»

# --- Classificazione truppe ------------------------------------------------------------------
ELITE_CLASS = 5    # «Guardie, Granatieri o Elite, Artiglieria e Cavalleria Pesante: 5»
LINE_CLASS = 4     # «Fanteria di Linea o Addestrati, Artiglieria e Cavalleria Media: 4»
LIGHT_CLASS = 3    # «Fanteria Leggera, Reclute o Milizia, Artiglieria e Cavalleria Leggera: 3»
CLASS_BY_WEIGHT = {"heavy": ELITE_CLASS, "medium": LINE_CLASS, "light": LIGHT_CLASS}
LOWEST_CLASS = LIGHT_CLASS   # «se si scende sotto un valore di 3, si viene eliminati»

# --- Esecuzione del tiro, Raggio di tiro -------------------------------------------------------
ARC_OF_FIRE_DEG = 45.0   # «arco di tiro 45 gradi» (how it is measured: Federico F2)

RANGES_CM: dict[str, tuple[float, float]] = {   # (short, long)
    "musket": (9.0, 18.0),             # «Moschetto: 9CM Corta, 18CM Lunga»
    "light_artillery": (18.0, 30.0),   # «Art. Leggera: 18CM Corta, 30CM Lunga»
    "medium_artillery": (18.0, 40.0),  # «Art. Media: 18CM Corta, 40CM Lunga»
    "heavy_artillery": (24.0, 60.0),   # «Art. Pesante.: 24CM Corta, 60CM Lunga»
}

DICE: dict[str, int] = {   # dice per base
    "musket": 1,             # «Ogni basetta di fanteria lancia 1D6»
    "light_artillery": 2,    # «Ogni basetta di Artiglieria Leggera tira 2D6»
    "medium_artillery": 3,   # «Artiglieria Media tira 3 dadi»
    "heavy_artillery": 4,    # «Artiglieria Pesante tira 4 dadi»
}

# --- Movimenti -------------------------------------------------------------------------------
MOVE_CM: dict[tuple[str, str], float] = {   # (arm, formation) -> cm per turn
    ("infantry", "march_column"): 12.0,   # «Fanteria o Artiglieria in colonna di marcia 12cm»
    ("artillery", "march_column"): 12.0,
    ("infantry", "line"): 9.0,            # «Fanteria in linea 9cm»
    ("artillery", "limbered"): 9.0,       # «Artiglieria al traino 9cm»
    ("cavalry", "march_column"): 18.0,    # «Cavalleria in colonna di marcia 18cm»
    ("cavalry", "line"): 15.0,            # «Cavalleria in linea 15cm»
    ("commander", "line"): 18.0,          # «Comandanti 18cm»
}
HALVED_MOVE = 0.5   # «il movimento si dimezza» (broken ground, obstacle, fordable stream)

# --- Mischie -----------------------------------------------------------------------------------
FALL_BACK_CM = {"infantry": 10.0, "cavalry": 20.0}
"""«10cm. per la fanteria, 20 cm. per la cavalleria» (no distance for artillery)."""


@dataclass(frozen=True)
class Row:
    """One row of a modifier table: what the rulebook says, and by how much."""

    text: str     # the condition, in English (the quick reference shows it)
    delta: int
    quote: str    # the Italian line


FIRE_MODIFIERS: dict[str, Row] = {   # Federico "Modificatori" (added to each die)
    "mounted": Row("target mounted, in march column or enfiladed", -1,
                   "Bersaglio montato, in colonna di marcia o d'infilata: - 1"),
    "target_light": Row("target is Light Infantry", +1, "Bersaglio Fanteria Leggera: +1"),
    "short": Row("target at short range", -1, "Bersaglio a distanza corta: - 1"),
    "light_firing": Row("Light Infantry firing", -1, "Fanteria Leggera che tira - 1"),
    "first_fire": Row("infantry firing for the first time", -1,
                      "Fanteria che tira per la prima volta: -1"),
    "cover": Row("target in cover, or artillery firing at artillery", +1,
                 "Bersaglio in copertura oppure Artiglieria che tira contro Artiglieria: +1"),
    "moved": Row("unit that has moved (not Light Infantry)", +1,
                 "Unità che ha mosso: +1 (tranne Fanteria Leggera)"),
}
COVER_IN_FIRE_TEXT = Row("target in cover (stated in Esecuzione del tiro too)", +1,
                         "contro bersaglio in copertura +1 al tiro del dado")

MORALE_MODIFIERS: dict[str, Row] = {   # Federico "Mischie": the defender's 1D6 morale test
    "flank_or_rear": Row("defender attacked in the flank or rear", +2,
                         "+2 Difensore attaccato di fianco o di spalle"),
    "favourable": Row("defender in favourable terrain", -1, "-1 Difensore in terreno favorevole"),
    "commander": Row("commander attached", -1, "-1 Comandante aggregato"),
    "highlanders_or_ambush": Row(
        "attacked by a Highlander clan, or by Indians out of a wood in ambush", +1,
        "+1 Difensore attaccato da Clan Highlander oppure da Indiani usciti da un Bosco in agguato"),
}

MELEE_MODIFIERS: dict[str, Row] = {   # Federico "Mischie": the attacker's melee die
    "heavy_or_elite": Row("attacker Heavy Cavalry or Elite Infantry (not against either)", -1,
                          "-1 se l'Attaccante è Cavalleria Pesante o Fanteria Elite"),
    "light": Row("attacker Light Cavalry or Light Infantry (not against either)", +1,
                 "+1 se l'Attaccante è Cavalleria Leggera o Fanteria Leggera"),
    "attacker_outnumbers": Row("attacker more numerous", -1,
                               "-1 se l'Attaccante è più numeroso del Difensore"),
    "defender_outnumbers": Row("defender more numerous", +1,
                               "+1 se il Difensore è più numeroso dell'Attaccante"),
    "cover_or_favourable": Row("defender behind light cover or in favourable terrain", +1,
                               "+1 se il Difensore è dietro copertura leggera o in terreno "
                               "favorevole"),
    "flank_or_rear": Row("defender taken in the flank or rear", -2,
                         "-2 se il Difensore è preso sul fianco o alle spalle"),
}

MELEE_RESULTS: tuple[tuple[float, str, str], ...] = (   # (highest modified die, result, text)
    (2, "defender_eliminated", "the Defender is eliminated"),    # «1 o 2 il Difensore è eliminato»
    (4, "defender_falls_back", "the Defender falls back"),       # «3 o 4 il Difensore arretra»
    (6, "attacker_falls_back", "the Attacker falls back"),       # «5 o 6 l'Attaccante arretra»
    (float("inf"), "attacker_eliminated", "the Attacker is eliminated"),   # «7 o più»
)


def melee_result_spans() -> list[tuple[str, str, str]]:
    """(the modified dice as words: "2 or less", "3–4", "7 or more"; result; text) of each row
    of `MELEE_RESULTS`, as the quick reference, the docs and the dice resolution show them."""
    out, low = [], None
    for high, result, text in MELEE_RESULTS:
        span = (f"{high:g} or less" if low is None else
                f"{low + 1:g} or more" if high == float("inf") else f"{low + 1:g}–{high:g}")
        out.append((span, result, text))
        low = high
    return out

# --- Comandanti, Iniziativa, Morale dell'esercito, Condizioni di vittoria -------------------
CHIEF_ABILITY = {"Able (Abile)": 4, "Reliable (Affidabile)": 3, "Mediocre (Mediocre)": 2,
                 "Incapable (Incapace)": 1}   # «Abile 4, Affidabile 3, Mediocre 2, Incapace 1»
INITIATIVE_PER_OBJECTIVE = 1   # «+1 per ogni obiettivo (collina, villaggio, ponte ecc.)»
LOSS_PERCENT_PER_CAPACITY = 10.0   # «Capacità Comando 4 ... il 40% delle basette» (F24)
MAX_TURNS = 16   # «in un massimo di 16 turni»

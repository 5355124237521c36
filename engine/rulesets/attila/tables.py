"""Every number and list the ATTILA rulebook gives, in one place (cm unless said).

The verdicts, the movement allowance, the quick reference (`reference.py`), the terrain editor's
lines (`terrain.py`) and the docs read these; no other module writes a rulebook number again.
Each cites ATT <chapter>.<paragraph> or ATT T (the summary tables). What the rulebook lacks
(movement rates, melee dice per type) is a setting labelled "not in the rulebook"
(`settings.py`), not a number here.
"""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_CM = 10.0

# --- troops (ATT 1, 4.G-H, 5.D, 13) -----------------------------------------------------------
TROOP_TYPES = ("FP", "FLP", "SI", "FL", "CP", "CL", "chariot_light", "chariot_heavy")
MOUNTED = frozenset({"CP", "CL", "chariot_light", "chariot_heavy"})        # ATT 1, 5.D, 13
INFANTRY = frozenset({"FP", "FLP", "SI", "FL"})                            # ATT 1
CAVALRY = frozenset({"CP", "CL"})                                          # ATT 1, 7.B
LIGHT_GROUP = frozenset({"SI", "FL", "CL", "chariot_light"})               # ATT 4.G, AT13
HEAVY_GROUP = frozenset({"FP", "CP", "FLP", "chariot_heavy"})              # ATT 4.H, AT13
SAME_ARM_LIGHT_MIX = frozenset({"CL", "SI"})                               # ATT 4.B
NOT_CLOSE_ORDER = "SI"          # ATT 1 «ad eccezione della fanteria in Schermaglia»
UPHILL_DRAW_TYPES = CAVALRY | {"FP"}   # ATT 7.B «Cavallerie e Fanterie Pesanti (escluse FMP)»

# --- movement (ATT 4.C, 5.E, 8.C) --------------------------------------------------------------
GENERAL_MOVE_CM = 24.0          # ATT 5.E «I Generali possiedono 24cm di movimento»
WOUNDED_GENERAL_MOVE_CM = 10.0  # ATT 8.C «potrà muovere al massimo di 10cm per mossa»
GENERAL_REACH_CM = 40.0         # ATT 4.C «o che disti oltre 40cm»
WHEEL_SHARE = 0.5               # ATT 5.I «non si possono spendere più della metà dei centimetri»
MAX_WHEEL_DEG = 90.0            # a forward wheel turns the front at most square (ATT 5.H-I)
D6_FACES = 6                    # ATT 5.B «lanciare 1 D6 e sottrarre il risultato»

# --- shooting (ATT 6, T) -------------------------------------------------------------------------
ARC_HALF_DEG = 30.0             # ATT 6.A «L'angolo di tiro è di 30° per lato»
SHORT_BELOW_CM = 5.0            # ATT 6.A «La distanza breve è minore di 5 cm.»
MEDIUM_UPTO_CM = 10.0           # ATT 6.A «la media è tra 5 e 10 cm (inclusi)»
SUMMARY_LONG_FROM_CM = 11.0     # ATT T «Lunga, 11cm o più» (AT6)
SHOOTING_DIE = {"javelins": "d6", "slings": "d6", "bows": "d8"}            # ATT T
MAX_RANGE_CM = {"javelins": 5.0, "slings": 10.0, "bows": 15.0}             # ATT T
SCORE_NEEDED = {"short": 5, "medium": 6, "long": 7}                        # ATT 6.B, T
SAVE_ON = 4                     # ATT 6.C «con 4, 5 e 6 non vengono Disordinati»

# --- melee (ATT 7, 8) ----------------------------------------------------------------------------
GENERAL_DIE = "d4"              # ATT 7.D «Possono solo difendersi con 1d4»
PIKES_DIE = "d12"               # ATT 8.A «picchieri si difende con 1d10 invece di 1d12»
DIE_SIZE = {"d4-1": 3, "d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12}
ATTACKERS_PER_SIDE = 1          # ATT 7.A «una per lato della basetta»
RETREAT_CM = 5.0                # ATT 7.E «deve ritirarsi di 5 cm, spalle al nemico»
GENERAL_RETIRE_CM = 5.0         # ATT 8.C «si Ritira dalla mischia muovendo 5 cm»
GENERAL_WOUNDED_FROM = 3        # ATT 8.C «un risultato di 3-5 significa che il Generale è Ferito»

# --- mandatory charges (ATT 13) ----------------------------------------------------------------
OBLIGED_MOUNTED_DIE = "d6"      # ATT 13 «Le unità montate con Dadi Mischia "D6" o più»
POTENTIAL_TARGET_DIE = "d8"     # ATT 13 «un Dado di Mischia di "D8" o più»
NOT_POTENTIAL_TYPES = frozenset({"FL", "FLP"})   # ATT 13 «ad eccezione delle unità di FL e FLP»

# --- Control Points, rallying, morale, victory (ATT 4, 9, 10, 15) ------------------------------
PC_DIE = {"veteran": "d8", "regular": "d6", "irregular": "d4"}           # ATT 4.E, T
WING_PC_DIE = {"veteran": "d6", "regular": "d4", "irregular": "d3"}      # ATT 4 optional rule
RALLY_ON = {"veteran": 5, "regular": 6, "irregular": 7}                  # ATT 9.A, T
REORGANISE_BEYOND_CM = 30.0     # ATT 9.A «lontano da unità nemiche, oltre i 30cm»
PC_COST = {                     # (army Demoralised, General far/dead/in contact) -> PC
    (False, False): 1, (False, True): 2,        # ATT 4.C
    (True, False): 2, (True, True): 3,          # ATT 10.A
}
PC_COST_TO_OWN_EDGE_DEMORALISED = 1   # ATT 10.A «ciò "costa" solo 1 Punto di Controllo»
FORCED_MARCH_PC_PER_BASE = 1    # ATT 4.D «1 Punto di Controllo extra per ogni basetta»
GENERAL_MOVE_PC = 0             # ATT 4.A «Il Generale può sempre muovere liberamente»
DEMORALISED_RALLY_MODIFIER = -1  # ATT 10.A «sottraggono "1"»
DEMORALISED_SHARE = 0.40        # ATT 10.A «il 40% (arrotondato per eccesso)»
VICTORY_SHARE = 0.60            # ATT 15.A «elimina il 60% delle unità nemiche»
DECISIVE_BELOW = 0.30           # ATT 15.A «meno del 30%»
PARTIAL_UPTO = 0.40             # ATT 15.A «comprese tra il 30 ed il 40%»
GENERAL_COUNTS = 5              # ATT 10.B «il Generale conta sempre come 5 unità»
CAMP_COUNTS = 5                 # ATT 10.C «l'Accampamento conta come 5 unità»
LAST_TURN = 16                  # ATT 15.B «alla fine dei 16 turni»


# --- deployment and terrain pieces (ATT 11.C-E, 12) ----------------------------------------------
@dataclass(frozen=True)
class ScaleDistances:
    area_cm: float          # ATT 11.C
    side_cm: float          # ATT 11.D
    own_edge_cm: float      # ATT 11.E
    piece_cm: tuple[float, float]      # ATT 12 «30cm per 15cm (25mm)»
    wood_max_cm: tuple[float, float]   # ATT 12 «fino a 30cm per 30cm (25mm)»
    spacing_cm: float       # ATT 12 «entro 30cm (25mm)/20cm (15mm)/15cm (6mm)»


SCALES = {
    "25mm": ScaleDistances(45.0, 15.0, 15.0, (30.0, 15.0), (30.0, 30.0), 30.0),
    "15mm": ScaleDistances(30.0, 10.0, 10.0, (20.0, 10.0), (20.0, 20.0), 20.0),
    "6mm": ScaleDistances(22.5, 7.5, 7.5, (15.0, 7.5), (15.0, 15.0), 15.0),
}
TERRAIN_COST = {"hill": 1, "wood": 2, "difficult": 2}   # ATT 12 «1 Punto ... 2 Punti»
PIECES = {"hill": "hill", "wood": "wood", "rough": "difficult", "marsh": "difficult"}  # ATT 12

# --- what each terrain kind is under ATTILA (ATT 4.B, 5.B, 5.F, 6.A, 6.C, 7.B, 12) -------------
WOODS = frozenset({"wood", "orchard"})                       # ATT 5.B, 6.A «Boschi»
MARSHES = frozenset({"marsh", "rice"})                       # ATT 5.B «Paludi»
ROUGH = frozenset({"rough"})                                 # ATT 5.F «Terreno Difficile» (AT17)
HILLS = frozenset({"hill"})                                  # ATT 6.A, 7.B «colline»
WATER_LINES = frozenset({"river", "stream"})                 # ATT 5.B «corso d'acqua»
WATER_AREAS = frozenset({"water"})
CROSSINGS = frozenset({"bridge", "ford"})                    # ATT 5.B «ponti o guadi»
DEFENCES = frozenset({"wall", "stone_wall", "low_wall", "parapet", "fortification_line",
                      "hedge"})                              # ATT 6.C «muri o difese»
DEFENDED_AREAS = frozenset({"fortification", "camp", "town", "village"})
COLUMN_FEATURES = frozenset({"road", "tree_lined_road", "bridge", "ford"})   # ATT 4.B
SIGHT_BLOCKING_AREAS = WOODS | HILLS                          # ATT 6.A «boschi, colline»

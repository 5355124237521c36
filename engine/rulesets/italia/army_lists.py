"""ISD Lists: the army lists with points costs, as data.

Columns of the source: troop type, unit size "medium - max", weapon, grade («EFFICACIA»), cost.
"A - B" sizes and "x / y" weapons carry one cost each, in order; ``costs`` keeps the pairing as
(variant, points). The source lost merged cells: values taken from the row above are listed in
``carried`` and cells empty in the source are None with a ``note`` (digest §15 notes). Flags
``light`` (ISD §8 «FANTERIE LEGGERE»), ``marksmen`` (ISD §7 +1 d6 list) and ``cavalry_class``
(ISD §9, ISD A37) are our mapping of the named troops onto those lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from campo.engine.rulesets.italia.troops import Arm, CavalryClass, Quality

V, R, G = Quality.VETERAN, Quality.REGULAR, Quality.GREEN
HC, LN, LC = CavalryClass.HEAVY, CavalryClass.LINE, CavalryClass.LIGHT


@dataclass(frozen=True)
class ListEntry:
    """One row of an army list (ISD Lists)."""

    army: str
    troop: str
    sizes: tuple[str, ...]
    weapons: tuple[str, ...]  # empty for cavalry («---»)
    grade: Quality | None
    costs: tuple[tuple[str, int], ...]
    guard: bool = False
    light: bool = False
    marksmen: bool = False
    cavalry_class: CavalryClass | None = None
    carried: tuple[str, ...] = ()
    note: str = ""
    cites: str = "ISD Lists"

    @property
    def arm(self) -> Arm:
        return Arm.INFANTRY if self.weapons else Arm.CAVALRY


def _e(army: str, troop: str, sizes: str, weapons: str, grade: Quality | None, costs: str, **kw: object) -> ListEntry:
    size_t = tuple(s.strip() for s in sizes.split("-"))
    weap_t = tuple(w.strip() for w in weapons.split("/")) if weapons else ()
    values = [int(c) for c in costs.replace("/", "-").split("-")] if costs else []
    if len(values) == 1:
        keys: tuple[str, ...] = ("",)
    elif len(size_t) == len(values):
        keys = size_t
    elif len(weap_t) == len(values):
        keys = weap_t
    else:
        keys = tuple(str(kw.pop("cost_keys")).split("|"))  # type: ignore[arg-type]
    return ListEntry(army, troop, size_t, weap_t, grade, tuple(zip(keys, values)), **kw)  # type: ignore[arg-type]


ARMY_NATION: dict[str, str] = {
    "piedmont": "piedmont",
    "austria": "austria",
    "france": "france",
    "naples": "others",
    "papal_1860": "others",
    "papal_1865": "others",
    "garibaldini_1860": "garibaldini",
    "duchies": "others",
}
"""Army list -> nationality row of the generals' quality table (ISD §3)."""

ARMY_LISTS: tuple[ListEntry, ...] = (
    # Esercito Piemontese
    _e("piedmont", "Granatieri di linea", "B", "MR", R, "96"),
    _e("piedmont", "Fanteria di linea", "B", "ML", R, "90", carried=("grade",)),
    _e("piedmont", "Bersaglieri", "E", "MR", R, "36", carried=("grade",), light=True, marksmen=True),
    _e("piedmont", "Cacciatori delle Alpi", "D - B", "MR", R, "51 - 102", carried=("grade",), light=True),
    _e("piedmont", "Cacciatori degli Appennini", "B", "ML", G, "72"),
    _e("piedmont", "Carabinieri Genovesi", "E", "MR/FRR", V, "42/44", light=True, marksmen=True),
    _e("piedmont", "Volontari della Valtellina", "E - D", "MR", R, "32 - 58"),
    _e("piedmont", "Cavalleggeri", "E", "", R, "52", carried=("grade",), cavalry_class=LC),
    _e("piedmont", "Cavalleria di linea", "D", "", R, "56", carried=("grade",), cavalry_class=LN),
    # Esercito Austriaco
    _e("austria", "Fanteria di linea", "A", "ML/MR", R, "120/128"),
    _e("austria", "Grenzer", "D", "ML/MR", R, "45 / 48", carried=("weapon", "grade")),
    _e("austria", "Volontari Vienna/altri volontari", "D", "ML", R, "45", carried=("grade",)),
    _e("austria", "Jager (Btg. N° 8,11,23,24,25)", "D", "MR", R, "54", carried=("grade",), light=True, marksmen=True),
    _e("austria", "Jager (Altri Btg.)", "E", "MR", R, "36", carried=("weapon", "grade"), light=True, marksmen=True),
    _e("austria", "Kaiser Jager (Btg. N° 7)", "D", "MR", V, "63", light=True, marksmen=True),
    _e("austria", "Kaiser Jager (Btg. N°1, 2, 3, 4, 5, 6)", "E", "MR", V, "42", carried=("weapon", "grade"), light=True, marksmen=True),
    _e("austria", "Dragoni", "C - B", "", R, "84 - 168", cavalry_class=LN),
    _e("austria", "Ussari e Ulani", "E - B", "", R, "52 - 156", carried=("grade",),
       note="Ussari are light, Ulani line cavalry (ISD A37): set traits.cavalry per unit."),
    _e("austria", "Corazzieri", "D", "", R, "90", carried=("grade",), cavalry_class=HC),
    # Esercito Francese
    _e("france", "Guard: Granatieri e Volteggiatori", "B", "MR", V, "126", guard=True, marksmen=True),
    _e("france", "Guard: Zuavi", "E", "MR", V, "42", guard=True, marksmen=True, carried=("weapon", "grade")),
    _e("france", "Guard: Cacciatori a piedi", "E", "MR", V, "42", guard=True, light=True, marksmen=True, carried=("weapon", "grade")),
    _e("france", "Guard: Dragoni", "E - C", "", V, "68 - 102", guard=True, cavalry_class=LN, carried=("grade",)),
    _e("france", "Guard: Corazzieri", "E - C", "", V, "72 - 108", guard=True, cavalry_class=HC, carried=("grade",)),
    _e("france", "Guard: Lancieri", "E - C", "", V, "64 - 96", guard=True, cavalry_class=LN, carried=("grade",)),
    _e("france", "Line: Fanteria", "B", "MR", R, "102"),
    _e("france", "Line: Cacciatori a piedi", "E", "MR", R, "36", light=True, marksmen=True, carried=("weapon", "grade")),
    _e("france", "Line: Zuavi e Tirailleurs d'Algerie (Turcos)", "B - A", "MR", V, "120 - 160"),
    _e("france", "Line: Fanteria Straniera (Legionari 1°/2° Btg.)", "B - A", "MR", V, "120 - 160",
       carried=("weapon", "grade", "cost")),
    _e("france", "Line: Lancieri, Ussari, Cacciatori a cavallo, Spahi", "E - C", "", R, "52 - 98",
       note="Lancieri are line, the others light cavalry (ISD A37): set traits.cavalry per unit."),
    _e("france", "Line: Chasseur d'Afrique", "E - C", "", V, "64 - 96", cavalry_class=LC),
    # Esercito Napoletano
    _e("naples", "Guard: Granatieri, Cacciatori, Real Navi", "B", "MR", G, "78", guard=True),
    _e("naples", "Guard: Tirailleurs", "E - D", "MR", None, "26 - 39", guard=True, light=True,
       note="Grade cell empty in the source; probably inexperienced (digest §15 note)."),
    _e("naples", "Guard: Ussari", "C", "", R, "78", guard=True, cavalry_class=LC),
    _e("naples", "Line: Fanteria", "B", "MR", G, "78"),
    _e("naples", "Line: Carabinieri Reali", "B", "MR", R, "102", light=True),
    _e("naples", "Line: Cacciatori", "D", "MR", R, "51", light=True, carried=("weapon", "grade")),
    _e("naples", "Line: Carabinieri esteri / Gendarmeria", "D", "MR", R, "51 / 48",
       carried=("weapon", "grade"), cost_keys="Carabinieri esteri|Gendarmeria"),
    _e("naples", "Line: Cavalleria leggera (Cacciatori, Lancieri)", "E - C", "", None, "52 - 78", cavalry_class=LC,
       note="Grade cell empty in the source; probably regular (digest §15 note)."),
    _e("naples", "Line: Cavalleria linea (Carabinieri, Dragoni)", "E - C", "", None, "56 - 84", cavalry_class=LN,
       note="Grade cell empty in the source; probably regular (digest §15 note)."),
    # Esercito Pontificio 1860-61
    _e("papal_1860", 'Fanteria di linea "Indigena"', "B", "ML", G, "72"),
    _e("papal_1860", 'Fanteria di linea "Estera"', "B", "ML", R, "90"),
    _e("papal_1860", 'Cacciatori "Indigeni"', "D", "MR", R, "48", light=True),
    _e("papal_1860", 'Bersaglieri / Jager "Austriaci"', "D", "", None, "", light=True, marksmen=True,
       note="Only the size is printed; probably MR, regular, 48 as the row above (digest §15 note)."),
    _e("papal_1860", "Carabinieri (Cacciatori esteri)", "D", "", None, "", light=True,
       note="Only the size is printed; probably MR, regular, 48 as the row above (digest §15 note)."),
    _e("papal_1860", "Battaglione di S.Patrizio", "E", "ML", V, "36", light=True),
    _e("papal_1860", "Tirailleurs Franco-Belgi", "E", "MR", V, "38"),
    _e("papal_1860", "Riservisti", "D", "ML", G, "36"),
    _e("papal_1860", "Cavalleria Leggera (Dragoni/Cavalleggeri)", "E - C", "", None, "40 - 60", cavalry_class=LC,
       note="Grade cell empty; probably inexperienced («Cavalleria Pontificia», digest §15 note)."),
    _e("papal_1860", "Gendarmeria", "D", "ML", R, "45"),
    # Esercito Pontificio 1865-70
    _e("papal_1865", "Gendarmeria", "D", "MR", R, "48"),
    _e("papal_1865", "Squadriglieri", "E", "ML", G, "24"),
    _e("papal_1865", "Cacciatori", "D", "FRR", R, "51", light=True),
    _e("papal_1865", "Fanteria di linea", "D", "MR", R, "48", carried=("grade",)),
    _e("papal_1865", "Zuavi", "B - A", "FRR", V, "120 - 160"),
    _e("papal_1865", "Carabinieri Esteri", "D", "FRR", R, "51", light=True),
    _e("papal_1865", "Francesi d'Antibe (Legione Romana)", "D", "MR", R, "48", carried=("grade",)),
    _e("papal_1865", "Dragoni", "E - C", "", R, "56 - 84", carried=("grade",), cavalry_class=LN),
    # Esercito Garibaldino 1860
    _e("garibaldini_1860", '"I Mille"', "D - B", "FO", V, "51 - 102"),
    _e("garibaldini_1860", "Volontari Siciliani", "D - B", "FO", R, "33 - 66"),
    _e("garibaldini_1860", "Brigata Medici", "B", "ML/MR", R, "90 / 96", carried=("grade",)),
    _e("garibaldini_1860", "Brigata Milano", "D", "ML/MR", R, "45 / 48", carried=("weapon", "grade")),
    _e("garibaldini_1860", "Brigata Eber", "B", "MR", V, "114"),
    _e("garibaldini_1860", "Brigata Sacchi", "B", "ML", G, "72"),
    _e("garibaldini_1860", 'Btg. "Dunne"', "E - D", "MR", R, "32 - 48"),
    _e("garibaldini_1860", "Guardia Nazionale/Patrioti vari", "D", "FO", G, "33"),
    # Ducati
    _e("duchies", "Ducati di Parma e Modena", "B - A", "MR", R, "96 - 128"),
)
"""ISD Lists, in the order of the source."""

ARTILLERY_COSTS: dict[tuple[Quality, str], int] = {
    (V, "foot"): 45, (V, "horse"): 50,
    (R, "foot"): 40, (R, "horse"): 45,
    (G, "foot"): 35, (G, "horse"): 40,
}
"""ISD Lists «A piedi - a cavallo»: cost per gun by grade (read as foot - horse)."""

RESERVE_ARTILLERY_SURCHARGE = 10
"""ISD Lists: Army Reserve artillery (foot only) costs + 10."""

ROCKET_BATTERY_COST = 20
"""ISD Lists: rocket battery, horse (normally Austrian only)."""


def entries(army: str) -> tuple[ListEntry, ...]:
    """The rows of one army list (keys as in ARMY_NATION)."""
    if army not in ARMY_NATION:
        raise KeyError(f"unknown army {army!r}; known: {', '.join(ARMY_NATION)}")
    return tuple(e for e in ARMY_LISTS if e.army == army)

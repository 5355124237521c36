"""Federico: the 18th-century horse-and-musket set (Frederick the Great, Highlanders, Indians).

The Italian text (shared/rules/seeds/federico.it.txt) is authoritative; every value cites its
heading (``Federico "Mischie"``) and every reading cites its ambiguity item (``Federico F8``).
"""

"""Connected sets of bases (supports, contacts, regiments kept together), shared by every rulebook."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def components(nodes: Sequence[str], links: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The connected sets of ``nodes`` by ``links`` (pairs of nodes), each in ``nodes``' order,
    in the order of their first node (union-find with path halving).

    >>> components(["a", "b", "c", "d"], [("c", "a")])
    [['a', 'c'], ['b'], ['d']]
    """
    parent = {n: n for n in nodes}

    def find(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for a, b in links:
        parent[find(a)] = find(b)
    out: dict[str, list[str]] = {}
    for n in nodes:
        out.setdefault(find(n), []).append(n)
    return list(out.values())

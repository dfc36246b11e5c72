"""Mutations of instance documents, for the schema/reader agreement test.

Each mutation takes a parsed instance document and a random source of
choices (``pick(options)`` returns one of them) and returns a mutated deep
copy, or None when the document has nothing the mutation applies to.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

Pick = Callable[[Sequence[Any]], Any]
Location = tuple[Any, Any]  # (container, key or index)


def locations(node: Any, *, top: bool = True) -> list[Location]:
    """Every (container, key) pair below ``node``, the top-level keys included."""
    found: list[Location] = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append((node, key))
            found.extend(locations(value, top=False))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.append((node, index))
            found.extend(locations(value, top=False))
    return found


def _containers(document: Any, kind: type) -> list[Any]:
    nodes = [document] + [container[key] for container, key in locations(document)]
    return [node for node in nodes if isinstance(node, kind)]


def delete_key(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    keyed = [(c, k) for c, k in locations(document) if isinstance(c, dict)]
    if not keyed:
        return None
    container, key = pick(keyed)
    del container[key]
    return document


def add_unknown_key(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    container = pick(_containers(document, dict))
    container[pick(["nmae", "extra", "Memory", "colour"])] = pick([1, "x", None])
    return document


def change_type(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    container, key = pick(locations(document))
    value = container[key]
    replacements = [r for r in ("12", [1], {"a": 1}, True, None, 1.5) if type(r) is not type(value)]
    container[key] = pick(replacements)
    return document


def _numbers(document: Any) -> list[Location]:
    return [(c, k) for c, k in locations(document) if isinstance(c[k], (int, float)) and not isinstance(c[k], bool)]


def negate_number(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    numbers = [(c, k) for c, k in _numbers(document) if c[k] != 0]
    if not numbers:
        return None
    container, key = pick(numbers)
    container[key] = -container[key]
    return document


def huge_number(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    numbers = _numbers(document)
    if not numbers:
        return None
    container, key = pick(numbers)
    container[key] = pick([2**60, -(2**60), 10**400, 1e300])
    return document


def nan_like_string(document: Any, pick: Pick) -> Any:
    document = copy.deepcopy(document)
    numbers = _numbers(document)
    if not numbers:
        return None
    container, key = pick(numbers)
    container[key] = pick(["NaN", "Infinity", "-Infinity", "nan", "1e999"])
    return document


def duplicate_name(document: Any, pick: Pick) -> Any:
    """Give a named record the name of another record of the same list."""
    document = copy.deepcopy(document)
    lists = [
        node
        for node in _containers(document, list)
        if sum(isinstance(item, dict) and isinstance(item.get("name"), str) for item in node) >= 2
    ]
    if not lists:
        return None
    records = [item for item in pick(lists) if isinstance(item, dict) and isinstance(item.get("name"), str)]
    first = pick(range(len(records)))
    second = pick([i for i in range(len(records)) if i != first])
    records[second]["name"] = records[first]["name"]
    return document


def dangling_reference(document: Any, pick: Pick) -> Any:
    """Point a reference (an index inside a list of integers or pairs, or a
    name inside an edge) to nothing."""
    document = copy.deepcopy(document)
    data = document.get("data") if isinstance(document, dict) else None
    references = []
    for container, key in locations(data if data is not None else {}):
        value = container[key]
        inside_list = isinstance(container, list)
        if inside_list and isinstance(value, str):
            references.append((container, key, "no-such-node"))
        elif inside_list and isinstance(value, int) and not isinstance(value, bool):
            references.append((container, key, 10**6))
        elif isinstance(container, dict) and key in ("from", "to", "a", "b") and not isinstance(value, bool):
            references.append((container, key, "no-such-node" if isinstance(value, str) else 10**6))
    if not references:
        return None
    container, key, replacement = pick(references)
    container[key] = replacement
    return document


MUTATIONS: dict[str, Callable[[Any, Pick], Any]] = {
    "delete a key": delete_key,
    "add an unknown key": add_unknown_key,
    "change a type": change_type,
    "negate a number": negate_number,
    "2**60 and other huge numbers": huge_number,
    "NaN-like string": nan_like_string,
    "duplicate name": duplicate_name,
    "dangling reference": dangling_reference,
}

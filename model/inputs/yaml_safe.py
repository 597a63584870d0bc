"""YAML with bounds: no code (SafeLoader), no alias bombs, no stack-deep nesting.

``yaml.safe_load`` runs no code, but a 600-byte file of nested aliases ("billion laughs")
describes a document of billions of nodes: walking, copying or printing it took 2.3 GB and
minutes.  Here the document is first composed into YAML's node graph, where an alias
is one shared node, and its size *with aliases expanded* is counted (memoised, so the count
itself is cheap) before any Python object is built.  Deep nesting is refused as well: PyYAML's
composer and our own walkers recurse.

References
----------
.. [1] YAML 1.1 specification, section 3.2.2.2 (anchors and aliases), https://yaml.org/spec/1.1/
.. [2] "Billion laughs attack", CWE-776: improper restriction of recursive entity references.
"""

from __future__ import annotations

from pinchpoint.errors import InputError
from pinchpoint.inputs.document import Reader

#: Nodes a document may hold with every alias expanded; kerncraft machine files hold a few
#: thousand.
MAX_NODES = 200_000
#: Deepest nesting of mappings and lists.
MAX_DEPTH = 64


def _expanded_size(root, max_nodes: int, max_depth: int, file) -> None:
    import yaml

    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if depth > max_depth:
            raise InputError(f"YAML nested deeper than {max_depth} levels", file=file)
        if key in active:
            raise InputError("YAML alias refers to the node that contains it", file=file)
        total = 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            active.add(key)
            children = node.value if isinstance(node, yaml.SequenceNode) else \
                [x for pair in node.value for x in pair]
            for child in children:
                total += size(child, depth + 1)
                if total > max_nodes:
                    raise InputError(f"YAML document too large: more than {max_nodes:,} values once its "
                                     "aliases are expanded", file=file)
            active.discard(key)
        sizes[key] = total
        return total

    size(root, 0)


def load_yaml(text: str, *, file: str | None = None, max_nodes: int = MAX_NODES,
              max_depth: int = MAX_DEPTH):
    """Parse one YAML document safely and within bounds.

    Raises
    ------
    InputError
        A syntax error (with its line), nesting deeper than ``max_depth``, more than
        ``max_nodes`` values once aliases are expanded, an integer too long to convert, or a
        number that is not finite (naming its key).
    """
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise InputError(f"YAML nested deeper than {max_depth} levels", file=file) from None
        if node is None:
            return None
        _expanded_size(node, max_nodes, max_depth, file)
        try:
            doc = loader.construct_document(node)
        except ValueError as exc:  # an integer past Python's 4,300-digit conversion limit
            raise InputError(f"holds a value that cannot be read ({str(exc)[:100]})", file=file) from None
        # the finite-number rule of every format (.inf, .nan, integers beyond any float)
        Reader(file, InputError, yaml=True).check_tree(doc, max_depth=max_depth)
        return doc
    finally:
        loader.dispose()

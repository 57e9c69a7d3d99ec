"""The package's floors: a module imports only its own floor and those below (docs/DESIGN.md, "Floors").

Every import counts, function-local ones too; only those under ``if TYPE_CHECKING:`` are left out.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "conformance"

# Lowest first; a module's floor is the entry holding its name's second part (conformance.<part>...).
FLOORS = [
    ("errors", "interrupts"),
    ("settings", "layout", "files"),
    ("transport",),
    ("recording",),
    ("contract",),
    ("auth",),
    ("simulators",),
    ("targets",),
    ("checks",),
    ("faults",),
    ("services",),  # the package root, base.py and every per-service package
    ("discovery",),  # settings read from a target (conformance discover, run --discover)
    ("runner", "selftest", "parallel", "plugin", "cli", "reporting", "suites", "proxy", "__main__"),
]


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def floor(module: str) -> int:
    if module == "conformance":
        return 0  # the root package's __init__ (empty)
    top = module.split(".")[1]
    return next(i for i, names in enumerate(FLOORS) if top in names)


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(test)


def imports(module: str) -> list[tuple[int, str]]:
    """(line, module) of every conformance module ``module`` imports outside TYPE_CHECKING."""
    out: list[tuple[int, str]] = []
    todo: list[ast.AST] = [ast.parse(MODULES[module].read_text(encoding="utf-8"))]
    while todo:
        node = todo.pop()
        if _type_checking(node):
            todo.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, f"{module}:{node.lineno}: a relative import"
            # "from pkg import sub" imports the module pkg.sub; "from pkg import name" imports pkg.
            out += [(node.lineno, f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in MODULES else node.module)
                    for a in node.names]
    return sorted({(line, name) for line, name in out if name in MODULES})


def core(module: str) -> bool:
    """Everything but the per-service packages (conformance/services/<id>/)."""
    parts = module.split(".")
    return not (len(parts) > 2 and parts[1] == "services" and parts[2] != "base")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_higher_floor(module: str) -> None:
    higher = [f"{module}:{line} imports {name}" for line, name in imports(module) if floor(name) > floor(module)]
    assert not higher, "a lower floor reaches up (hand it what it needs instead):\n" + "\n".join(higher)


def test_no_import_cycle_among_the_core_modules() -> None:
    graph: dict[str, set[str]] = {}
    for module in filter(core, MODULES):
        edges = graph.setdefault(module, set())
        for _line, name in imports(module):
            # Importing a.b.c runs a/__init__ and a/b/__init__ too, unless they are the importer's own.
            parts = name.split(".")
            for i in range(2, len(parts) + 1):
                target = ".".join(parts[:i])
                if core(target) and target != module and not module.startswith(target + "."):
                    edges.add(target)
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")

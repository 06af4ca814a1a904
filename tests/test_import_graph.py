"""The import graph of `sciwrite`, read from the source by AST: every import counted wherever it stands (at module level,
inside a function, under ``TYPE_CHECKING``), and a module named by a string (``importlib.import_module("sciwrite.x")``
or a constant holding its name) counted as an import too. Shared code asks the `Benchmark` and never imports a
benchmark package; the graph has no cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
BENCHMARK_PACKAGES = ("sciwrite.rwgbench", "sciwrite.sciig", "sciwrite.surge")
#: The modules that may import a benchmark package besides the packages themselves: the registries, of the
#: benchmarks and of their Inspect tasks (the ``inspect_ai`` entry point).
REGISTRIES = ("sciwrite.benchmarks", "sciwrite.harness.inspect_registry")


def module_files() -> dict[str, Path]:
    modules = {}
    for path in (SRC / "sciwrite").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The sciwrite modules `name` imports (the most specific known module of each import), or names by a string."""

    def resolve(target: str) -> str | None:
        while target and target not in known:
            target = target.rpartition(".")[0]
        return target or None

    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            targets = [node.value]
        else:
            continue
        for target in targets:
            module = resolve(target)
            # a package's __init__ importing its own children is its face, not a dependency
            if module and module != name and not (path.name == "__init__.py" and module.startswith(name + ".")) \
                    and not name.startswith(module + "."):
                found.add(module)
    return found


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    files = module_files()
    known = set(files)
    g = nx.DiGraph()
    g.add_nodes_from(known)
    for name, path in files.items():
        g.add_edges_from((name, target) for target in imports_of(name, path, known))
    return g


def in_benchmark_package(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in BENCHMARK_PACKAGES)


def test_the_import_graph_has_no_cycle(graph):
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == [], f"import cycles (imports named by a string included): {cycles}"


def test_shared_code_imports_no_benchmark_package(graph):
    offenders = sorted((module, target) for module, target in graph.edges
                       if in_benchmark_package(target) and not in_benchmark_package(module) and module not in REGISTRIES)
    assert offenders == [], f"shared modules importing a benchmark package: {offenders}"


def test_the_benchmark_packages_do_not_import_each_other(graph):
    """No benchmark package imports another: what two benchmarks share lives in the shared core."""
    crossing = sorted((m, t) for m, t in graph.edges if in_benchmark_package(m) and in_benchmark_package(t)
                      and m.split(".")[1] != t.split(".")[1])
    assert crossing == [], f"benchmark packages importing each other: {crossing}"


def test_the_space_and_the_cli_name_no_benchmark_package():
    for path in [ROOT / "spaces" / "leaderboard" / "app.py", *(SRC / "sciwrite" / "cli").glob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        named = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module] + \
                [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in named if in_benchmark_package(m)], path.name

"""The rules that keep py/retto's house, checked from the source alone (no module is imported).

Layers, lowest first; a module may import only from its own layer or a lower one, and a third-party package only
from its home. The package facade (`retto/__init__.py`, `retto/__main__.py`) sits on top of everything."""
from __future__ import annotations

import ast
import re
from pathlib import Path

LAYERS = ["core", "io", "ops", "models", "pipeline", "export", "native", "browser", "scale", "cli"]
CORE = {"retto._version", "retto.errors", "retto.config", "retto.result", "retto.records", "retto.stepping"}
FACADE = {"retto", "retto.__main__"}
# Third-party packages that may be imported only inside one layer.
HOMES = {"pyodide": "browser", "js": "browser", "onnxruntime": "native", "pypdfium2": "native", "tesserocr": "native",
         "ray": "scale", "pyarrow": "scale"}


def module_name(root: Path, path: Path) -> str:
    """`retto.io.image` for py/retto/io/image.py (root is py/), `retto.io` for py/retto/io/__init__.py."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str | None:
    """The layer a retto module belongs to (None for the facade)."""
    if module in FACADE:
        return None
    if module in CORE:
        return "core"
    part = module.split(".")[1]
    if part not in LAYERS:
        raise ValueError(f"{module} is in no layer: put it in one of {', '.join(LAYERS)} or the core")
    return part


def imports(root: Path, path: Path) -> list:
    """(line, imported module) for every import in the file, including those inside functions; a relative import
    is resolved, and `from retto.x import y` names retto.x.y when y is a module of its own."""
    me = module_name(root, path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                exists = (root / Path(*sub.split("."))).is_dir() or (root / Path(*sub.split("."))).with_suffix(
                    ".py").is_file()
                out.append((node.lineno, sub if exists else base))
    return out


def retto_modules(root: Path) -> dict:
    return {module_name(root, p): p for p in sorted((root / "retto").rglob("*.py"))}


def violations(root: Path) -> list:
    """Every broken rule, as readable lines (an empty list: the house holds)."""
    out = []
    modules = retto_modules(root)
    graph = {}
    for me, path in modules.items():
        mine = layer_of(me)
        graph[me] = set()
        for line, target in imports(root, path):
            where = f"{path.relative_to(root)}:{line}"
            top = target.split(".")[0]
            if top in HOMES and mine != HOMES[top]:
                out.append(f"{where}: {top} belongs in retto/{HOMES[top]}/, not in {me}")
            if top != "retto" or mine is None:
                continue
            if target == "retto":
                out.append(f"{where}: {me} imports the package facade `retto`; import the module that defines "
                           f"the name instead")
                continue
            graph[me].add(target)
            theirs = layer_of(target)
            if theirs is not None and LAYERS.index(theirs) > LAYERS.index(mine):
                out.append(f"{where}: {me} ({mine}) imports {target} ({theirs}), a higher layer")
    out += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    return out


def cycles(graph: dict) -> list:
    """The import cycles among modules (each found once, as a path that returns to its start)."""
    found, seen = [], set()
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in graph:
                continue
            if state.get(nxt) == "open":
                cycle = stack[stack.index(nxt):] + [nxt]
                key = frozenset(cycle)
                if key not in seen:
                    seen.add(key)
                    found.append(cycle)
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return found


JS_IMPORT = re.compile(r"""(?:^|[\s;])(?:import|export)\s[^'"`]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]""",
                       re.M)


def js_violations(src: Path) -> list:
    """web/src/client/ never imports web/src/worker/ (the client only starts the worker by URL)."""
    out = []
    for path in sorted((src / "client").rglob("*.js")):
        for m in JS_IMPORT.finditer(path.read_text(encoding="utf-8")):
            spec = m.group(1) or m.group(2)
            if spec.startswith("."):
                target = (path.parent / spec).resolve()
                if (src / "worker").resolve() in target.parents:
                    line = path.read_text(encoding="utf-8")[:m.start()].count("\n") + 1
                    out.append(f"{path.relative_to(src)}:{line}: the client imports {spec} from worker/")
    return out

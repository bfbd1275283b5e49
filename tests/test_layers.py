"""Dependencies point one way (docs/architecture.md): socialsite <- profiles
<- feeds <- comments and messaging <- moderation, with notifications, ads and devlens on
top. A lower app never imports a higher one, not even inside a function: it
sends a signal from socialsite/events.py and the higher app listens. The
embedded database is selected by the connection setup alone.

Every module of every app is parsed (not imported) and each `import` and
`from ... import` is checked, wherever it stands in the module.
"""

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Each app's layer: an app may import its own layer's apps only if listed
#: in ALLOWED_SIDEWAYS, and any app of a lower layer.
LAYERS = {
    "socialsite": 0,
    "profiles": 1,
    "feeds": 2,
    "comments": 3,
    "timelines": 3,
    "explore": 3,
    "messaging": 3,
    "moderation": 4,
    "notifications": 5,
    "ads": 5,
    "devlens": 5,
    # Live updates listen to every app's events; the client API streams them.
    "live": 6,
    # Federation replays remote activities through every app's services.
    "federation": 6,
    # The client API sits on top of every other app.
    "api": 7,
}
#: The apps on top do not use each other.
ALLOWED_SIDEWAYS: set[tuple[str, str]] = set()
#: What the apps of the domain itself never reach, at any depth.
DOMAIN = ("profiles", "feeds", "comments", "timelines", "explore", "messaging")
ON_TOP = ("notifications", "ads", "devlens", "moderation", "live", "federation", "api")
EMBEDDED = "embedded_mongo"
#: The one module that may select the embedded database.
EMBEDDED_ALLOWED = {"socialsite/mongo.py"}


def _imported(tree: ast.AST, module: str) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in the module's tree."""
    found = []
    package = module.rsplit("/", 1)[0].replace("/", ".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: within the module's own app
                base = package.split(".")
                found.append((node.lineno, base[0]))
            elif node.module:
                found.append((node.lineno, node.module.split(".")[0]))
    return found


def _modules():
    for app in LAYERS:
        for path in sorted((ROOT / app).rglob("*.py")):
            yield app, path.relative_to(ROOT).as_posix(), path


def _violations() -> list[str]:
    problems = []
    for app, name, path in _modules():
        tree = ast.parse(path.read_text(), filename=name)
        for line, target in _imported(tree, name):
            where = f"{name}:{line}"
            if target == EMBEDDED and name not in EMBEDDED_ALLOWED:
                problems.append(f"{where} imports {EMBEDDED} (only socialsite/mongo.py may)")
            if target not in LAYERS or target == app:
                continue
            if app in DOMAIN and target in ON_TOP:
                problems.append(f"{where}: {app} imports {target}, which sits on top of it")
            elif LAYERS[target] > LAYERS[app]:
                problems.append(f"{where}: {app} imports {target}, a higher app")
            elif LAYERS[target] == LAYERS[app] and (app, target) not in ALLOWED_SIDEWAYS:
                problems.append(f"{where}: {app} imports {target}, an app beside it")
    return problems


def test_apps_import_only_downward():
    problems = _violations()
    assert not problems, "Imports against the layering:\n  " + "\n  ".join(problems)


def test_the_check_sees_function_local_imports(tmp_path):
    source = "def f():\n    from notifications import services\n    import devlens.views\n"
    found = _imported(ast.parse(source), "feeds/x.py")
    assert found == [(2, "notifications"), (3, "devlens")]


def _foreign_collections(tree: ast.AST, app: str, name: str) -> list[str]:
    """`X._get_collection()` calls in `app`'s module where X, as the module
    imports it, is a document class of another app."""
    origins = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                origins[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                origins[alias.asname or alias.name.split(".")[0]] = alias.name
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "_get_collection"
        ):
            held = ast.unparse(node.func.value)
            owner = origins.get(held.split(".")[0], app).split(".")[0]
            if owner in LAYERS and owner != app:
                found.append(f"{name}:{node.lineno}: {held} belongs to {owner}")
    return found


def test_no_app_touches_another_apps_collections():
    """An app asks the owning app's services (writes) or selectors (reads);
    it never opens another app's collection itself."""
    problems = []
    for app, name, path in _modules():
        problems += _foreign_collections(ast.parse(path.read_text()), app, name)
    assert not problems, "Collections of other apps:\n  " + "\n  ".join(problems)


def test_the_collection_check_sees_through_imports():
    source = (
        "from profiles.documents import User\n"
        "from feeds.documents import Post\n"
        "User._get_collection().find_one({})\n"
        "Post._get_collection().update_one({}, {})\n"
    )
    found = _foreign_collections(ast.parse(source), "feeds", "feeds/x.py")
    assert found == ["feeds/x.py:3: User belongs to profiles"]


# --- Wiring that hides from imports --------------------------------------------
# A dotted path handed to import_string (or import_module) is an import the
# check above cannot see; so are a template's `{% load %}` of another app's
# tag library and its `{% include %}`/`{% extends %}` of another app's
# template. A lower app reaches a higher one only through what the higher
# app registers (socialsite/extensions.py: page context and template slots).

DYNAMIC_IMPORTS = {"import_string", "import_module"}
LOAD = re.compile(r"{%\s*load\s+([^%]+?)\s*%}")
INCLUDED = re.compile(r"""{%\s*(?:include|extends)\s+["']([a-z_]+)/""")


def _dynamic_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0]
        literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if name in DYNAMIC_IMPORTS and literal:
            found.append((node.lineno, first.value.split(".")[0]))
    return found


def _against_layers(app: str, target: str, where: str) -> str | None:
    if target not in LAYERS or target == app:
        return None
    if app in DOMAIN and target in ON_TOP:
        return f"{where}: {app} reaches {target}, which sits on top of it"
    if LAYERS[target] > LAYERS[app]:
        return f"{where}: {app} reaches {target}, a higher app"
    if LAYERS[target] == LAYERS[app] and (app, target) not in ALLOWED_SIDEWAYS:
        return f"{where}: {app} reaches {target}, an app beside it"
    return None


def _tag_libraries() -> dict[str, str]:
    """Each template tag library's name and the app it belongs to."""
    return {
        path.stem: app
        for app in LAYERS
        for path in (ROOT / app / "templatetags").glob("*.py")
        if path.stem != "__init__"
    }


def _template_reaches(source: str, app: str, name: str, libraries: dict[str, str]) -> list[str]:
    problems = []
    for number, line in enumerate(source.splitlines(), 1):
        where = f"{name}:{number}"
        targets = [libraries.get(lib, "") for m in LOAD.finditer(line) for lib in m[1].split()]
        targets += [m[1] for m in INCLUDED.finditer(line)]
        problems += [p for t in targets if (p := _against_layers(app, t, where))]
    return problems


def _wiring_violations() -> list[str]:
    problems = []
    for app, name, path in _modules():
        for line, target in _dynamic_imports(ast.parse(path.read_text(), filename=name)):
            if problem := _against_layers(app, target, f"{name}:{line} (a dotted path)"):
                problems.append(problem)
    libraries = _tag_libraries()
    for app in LAYERS:
        for path in sorted((ROOT / "templates" / app).rglob("*.html")):
            name = path.relative_to(ROOT).as_posix()
            problems += _template_reaches(path.read_text(), app, name, libraries)
    return problems


def test_no_app_reaches_a_higher_one_by_a_dotted_path_or_a_template():
    problems = _wiring_violations()
    assert not problems, "Hidden wiring against the layering:\n  " + "\n  ".join(problems)


def test_the_wiring_check_sees_a_planted_path_and_template():
    planted = "from django.utils.module_loading import import_string\nimport_string('ads.x.y')\n"
    assert _dynamic_imports(ast.parse(planted)) == [(2, "ads")]
    assert _against_layers("feeds", "ads", "feeds/x.py:2")
    libraries = _tag_libraries()
    assert libraries["ads"] == "ads" and libraries["posts"] == "feeds"
    template = '{% load posts ads %}\n{% include "moderation/_report.html" %}\n'
    found = _template_reaches(template, "feeds", "templates/feeds/x.html", libraries)
    assert found == [
        "templates/feeds/x.html:1: feeds reaches ads, which sits on top of it",
        "templates/feeds/x.html:2: feeds reaches moderation, which sits on top of it",
    ]


def _services_imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every import of a `services` module or package."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if "services" in a.name.split(".")]
        elif isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if "services" in parts:
                found.append((node.lineno, node.module))
            else:
                names = [a.name for a in node.names if a.name == "services"]
                found += [(node.lineno, f"{node.module}.services") for _ in names]
    return found


def test_selectors_never_import_services():
    """Reads stay reads: a selector may not call into the writes (their read
    helpers live in selectors, pure text in modules of their own)."""
    problems = []
    for _app, name, path in _modules():
        if "selectors" not in name.split("/")[1:] and not name.endswith("/selectors.py"):
            continue
        for line, module in _services_imported(ast.parse(path.read_text())):
            problems.append(f"{name}:{line} imports {module}")
    assert not problems, "Selectors importing services:\n  " + "\n  ".join(problems)


def test_the_selector_check_sees_both_forms():
    source = "from feeds.services import likes\nfrom feeds import services\nimport a.services.b\n"
    assert _services_imported(ast.parse(source)) == [
        (1, "feeds.services"),
        (2, "feeds.services"),
        (3, "a.services.b"),
    ]


# --- No import cycles inside an app ------------------------------------------
#: The apps held free of import cycles between their own modules (function-
#: local imports count: they only hide a cycle): every app. `apps.py` wires
#: the app up in `ready()` and is left out.
ACYCLIC = tuple(LAYERS)


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _app_graph(app: str) -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in (ROOT / app).rglob("*.py") if p.name != "apps.py"}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            graph[name] |= {t for t in targets if t in paths and t != name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while (w := stack.pop()) != v:
                part.append(w)
            if part:
                found.append(sorted([v, *part]))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_acyclic_apps_have_no_import_cycle():
    cycles = {app: _cycles(_app_graph(app)) for app in ACYCLIC}
    assert not any(cycles.values()), f"Import cycles: {cycles}"


def test_the_cycle_check_sees_a_cycle():
    graph = {"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": {"a.x"}}
    assert _cycles(graph) == [["a.x", "a.y", "a.z"]]


def test_every_app_is_packaged_and_type_checked():
    """An app left out of the wheel's package list is missing from an
    installed site; one left out of mypy's files is not checked at all."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packaged = config["tool"]["setuptools"]["packages"]["find"]["include"]
    checked = config["tool"]["mypy"]["files"]
    assert config["tool"]["mypy"]["disallow_untyped_defs"] is True
    for app in LAYERS:
        assert f"{app}*" in packaged, app
        assert app in checked, app

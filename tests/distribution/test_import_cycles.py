"""No package of the project imports itself in a circle: for no import of one of its modules by
another does a chain of imports lead back. grimp's graph counts every import made at run time,
those inside functions too, so a cycle cannot hide in a function; an import under
``TYPE_CHECKING``, which only a type checker follows, is left out (as import-linter's
``exclude_type_checking_imports`` in ``pyproject.toml``). (The emulator's layers and the core's,
import-linter contracts in ``pyproject.toml``, keep their sub-packages in order too.)
"""

from __future__ import annotations

import grimp
import pytest

PACKAGES = ["grounding_core", "grounding_emulator", "langchain_grounding", "llamaindex_grounding"]


def import_cycles(package: str) -> list[str]:
    """Each import that closes a cycle, as the cycle: ``a -> b -> a``."""
    graph = grimp.build_graph(package, cache_dir=None, exclude_type_checking_imports=True)
    cycles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                cycles.append(" -> ".join((importer, *back)))
    return cycles


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_itself_through_others(package):
    cycles = import_cycles(package)
    assert cycles == [], "\n".join(cycles)


def test_the_check_finds_a_cycle_through_a_function(tmp_path, monkeypatch):
    package = tmp_path / "circle"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from circle import b\n", encoding="utf-8")
    (package / "b.py").write_text("def f():\n    from circle import c\n", encoding="utf-8")
    (package / "c.py").write_text("import circle.a\n", encoding="utf-8")
    (package / "d.py").write_text("import circle.a\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("circle") == [
        "circle.a -> circle.b -> circle.c -> circle.a",
        "circle.b -> circle.c -> circle.a -> circle.b",
        "circle.c -> circle.a -> circle.b -> circle.c",
    ]


def test_the_check_leaves_out_imports_under_type_checking(tmp_path, monkeypatch):
    package = tmp_path / "typed"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "records.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from typed import views\n",
        encoding="utf-8",
    )
    (package / "views.py").write_text("from typed import records\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("typed") == []
    # The same import at run time closes a cycle.
    (package / "records.py").write_text("from typed import views\n", encoding="utf-8")
    assert import_cycles("typed") == [
        "typed.records -> typed.views -> typed.records",
        "typed.views -> typed.records -> typed.views",
    ]

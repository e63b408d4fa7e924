"""The layering of the package, pinned: the import-linter contracts in pyproject.toml (which package
may import which; lazy imports inside functions count) hold for the whole tree."""
from pathlib import Path

from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    code = lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out

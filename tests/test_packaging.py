"""The installed distribution: one top-level import name, `campo`, holding every layer."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("vision", "calibration", "engine", "server")
DATA_FOLDERS = {"campo.server.static", "campo.vision.synthetic.demo_data"}  # files, no __init__


def _listed_packages() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return config["packages"]


def test_every_package_folder_is_listed() -> None:
    """A new sub-package must be added to pyproject.toml, or the wheel would leave it out."""
    found = {"campo"} | DATA_FOLDERS | {
        "campo." + ".".join(init.parent.relative_to(ROOT).parts)
        for layer in LAYERS for init in (ROOT / layer).rglob("__init__.py")}
    assert sorted(found) == sorted(_listed_packages())


def test_no_module_imports_a_layer_by_its_bare_name() -> None:
    """Every import goes through `campo.`: a bare `import engine` would load a second copy of
    the module (or someone else's `engine.py`)."""
    import re

    bare = re.compile(r"^\s*(from|import) (vision|calibration|engine|server)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for folder in (*LAYERS, "campo", "tests", "bench")
                 for p in (ROOT / folder).rglob("*.py") if bare.search(p.read_text())]
    assert offenders == []


@pytest.mark.slow
def test_wheel_has_one_top_level_name(tmp_path: Path) -> None:
    # built from a copy: setuptools leaves a build/ folder beside the sources it builds
    import shutil

    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "tests", "bench", "__pycache__", "*.egg-info", ".pytest_cache"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-v", "-w", str(tmp_path), str(source)],
                           check=True, capture_output=True, text=True, timeout=300)
    assert "would be ignored" not in built.stdout + built.stderr  # every folder it ships is listed
    (wheel,) = tmp_path.glob("campo-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"campo"}
    for must in ("campo/engine/__init__.py", "campo/server/static/index.html",
                 "campo/vision/synthetic/demo_data/roster.toml",
                 "campo/engine/rulesets/attila/__init__.py", "campo/errors.py"):
        assert must in names, must

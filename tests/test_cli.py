"""The `campo` console script: sub-commands are discovered; user errors are one line, no traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys

from campo.server.cli import build_parser


def test_help_lists_only_working_commands() -> None:
    parser = build_parser()
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, sub in choices.items():
        assert sub.description, f"campo {name} has no help text"


def test_each_command_is_listed_with_its_modules_first_line() -> None:
    """`COMMANDS` (read without importing the commands) says what each module's docstring says,
    and names every module in campo/server/commands."""
    import pkgutil

    from campo.server import commands
    from campo.server.cli import COMMANDS, command_module

    names = {i.name.replace("_", "-") for i in pkgutil.iter_modules(commands.__path__)
             if not i.name.startswith("_")}
    assert names == set(COMMANDS)
    for name, summary in COMMANDS.items():
        assert (command_module(name).__doc__ or "").strip().splitlines()[0] == summary, name


def test_help_imports_no_command() -> None:
    """`campo --help` loads neither OpenCV, the engine nor the web server (it must be quick)."""
    code = ("import sys; from campo.server.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('cv2', 'numpy', 'shapely', 'fastapi', 'campo.engine', "
            "'campo.server.commands.serve') if m in sys.modules]\n"
            "print('HEAVY', heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "HEAVY []" in proc.stdout, proc.stdout + proc.stderr


def test_version(run_campo) -> None:
    code, out, _ = run_campo("--version")
    assert code == 0 and out.startswith("campo ")


def test_installed_console_script_runs() -> None:
    exe = shutil.which("campo") or str(__import__("pathlib").Path(sys.executable).with_name("campo"))
    proc = subprocess.run([exe, "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "usage: campo" in proc.stdout


def test_unknown_command_is_a_usage_error(run_campo) -> None:
    code, _, err = run_campo("frobnicate")
    assert code == 2 and "invalid choice" in err


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    command = readme.split("Run the tests:")[1].split("```sh")[1].split("```")[0].strip()
    ci_lines = (root / ".ci" / "run").read_text().splitlines()
    assert ci_lines[-1] == command


def test_formats_doc_vocabulary_is_current() -> None:
    from pathlib import Path

    from campo.engine.rulesets.doc_common import refresh_blocks
    from campo.engine.vocabulary import markdown

    doc = (Path(__file__).resolve().parents[1] / "docs" / "formats.md").read_text()
    assert refresh_blocks(doc, {"vocabulary": markdown}) == doc, \
        "run: python -m campo.engine.vocabulary docs/formats.md"

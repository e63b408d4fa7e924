"""The README's commands as a new user runs them: the set-up line's package step works as root without
`sudo` and as a user with it, and CI runs exactly the README's test command."""
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README, re.S)


def setup_line() -> str:
    after = README.split("**Set up and run**", 1)[1]
    [line] = re.search(r"```bash\n(.*?)```", after, re.S).group(1).strip().splitlines()   # one command line
    return line


@pytest.mark.parametrize("has_sudo", [False, True])
def test_setup_package_step_with_and_without_sudo(tmp_path, has_sudo):
    """Only fake `apt-get` (and `sudo`) are on PATH: they log how they were called."""
    apt_part = setup_line().split(" && python3 -m venv", 1)[0]
    assert "apt-get install" in apt_part
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text(f'#!/bin/bash\necho "apt-get $*" >> {log}\n')
    if has_sudo:
        (bin_dir / "sudo").write_text(f'#!/bin/bash\necho "sudo $1" >> {log}\nexec "$@"\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    out = subprocess.run(["/bin/bash", "-c", apt_part], env={"PATH": str(bin_dir), "HOME": os.environ.get("HOME", "/")},
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    calls = log.read_text().splitlines()
    apt = ["apt-get update", "apt-get install -y clang-16 llvm-16 tmux bubblewrap"]
    assert calls == (["sudo apt-get", apt[0], "sudo apt-get", apt[1]] if has_sudo else apt), calls


def test_ci_runs_the_readme_test_command():
    test_command = next(b.strip() for b in bash_blocks() if "pytest" in b and "\n" not in b.strip())
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == test_command == ".venv/bin/python -m pytest -n 2 -q"

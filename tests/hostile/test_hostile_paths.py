"""Writers and readers stay inside their root: a project file named with `..`, a symlink planted in
an output directory, or a link in a project directory pointing elsewhere is refused (one-line
UserError) or not followed."""
from pathlib import Path

import pytest

from kernelwright.errors import UserError
from kernelwright.tools.dsl.lower import lower
from kernelwright.tools.dsl.parse_program import parse_file
from kernelwright.tools.formats.registry import export
from kernelwright.tools.project import KernelProject

EXAMPLES = Path(__file__).resolve().parents[2] / "prompts" / "examples"
KERNEL = 'extern "C" __global__ __aicore__ void relu(GM_ADDR x) {}\n'


def project(files=None) -> KernelProject:
    return KernelProject(name="relu", kind="kernel_launch", files=files or {"relu.cpp": KERNEL})


@pytest.mark.parametrize("rel", ["../escape.cpp", "op_host/../../escape.cpp", "/tmp/abs.cpp", 'a"b.cpp', "a\nb.cpp"])
def test_project_file_names_that_leave_the_project_are_refused(tmp_path, rel):
    with pytest.raises(UserError, match="leaves the project"):
        project({rel: KERNEL}).write(tmp_path / "out")
    assert not (tmp_path / "escape.cpp").exists()


def test_write_refuses_a_symlink_planted_in_the_output(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "relu.cpp").symlink_to(outside / "victim.cpp")
    with pytest.raises(UserError, match="outside"):
        project().write(out)
    assert not (outside / "victim.cpp").exists()


def test_export_does_not_follow_a_symlinked_directory_out_of_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "op_kernel").symlink_to(outside)
    msopgen = lower(parse_file(EXAMPLES / "elementwise" / "relu.dsl.py"))
    with pytest.raises(UserError, match="outside"):
        export(msopgen, "cann", out)
    assert list(outside.iterdir()) == []


def test_reading_a_project_dir_skips_links_that_leave_it(tmp_path):
    secret = tmp_path / "secret.h"
    secret.write_text("// SECRET\n")
    src = tmp_path / "proj"
    src.mkdir()
    (src / "relu.cpp").write_text(KERNEL)
    (src / "leak.h").symlink_to(secret)
    p = KernelProject.from_dir(src)
    assert "leak.h" not in p.files and all("SECRET" not in t for t in p.files.values())


def test_an_output_root_that_is_itself_a_link_is_the_callers_choice(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    project().write(tmp_path / "alias")
    assert (real / "relu.cpp").read_text() == KERNEL


def test_a_task_dir_whose_files_link_out_is_refused(tmp_path):
    import shutil

    from kernelwright.tools.tasks import load_task
    src = Path(__file__).resolve().parents[1] / "tasks" / "fixtures" / "npukb" / "tasks" / "level1" / "Math" / "ScaleAdd"
    task = tmp_path / "level1" / "Math" / "ScaleAdd"
    shutil.copytree(src, task)
    load_task(task)
    secret = tmp_path / "secret.md"
    secret.write_text("SECRET")
    (task / "api_desc.md").unlink()
    (task / "api_desc.md").symlink_to(secret)
    with pytest.raises(UserError, match="api_desc.md link"):
        load_task(task)

"""Sealing a cache entry (issue 13): files become read-only with their hashes recorded, a library's
version link inside the entry is kept and checked, links out of it, FIFOs and devices are dropped;
any later change is found."""
from __future__ import annotations

import os
import stat

from kernelwright.tools.buildkit import cache


def entry(tmp_path):
    root = tmp_path / "entry"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "libk.so.1").write_bytes(b"\x7fELF-ish")
    (root / "kernel_exe").write_bytes(b"exe")
    (root / "kernel_exe").chmod(0o755)
    os.symlink("libk.so.1", root / "lib" / "libk.so")
    os.symlink("/etc/passwd", root / "lib" / "outside")
    os.symlink("../../elsewhere", root / "lib" / "up")
    os.mkfifo(root / "pipe")
    cache.seal(root)
    return root


def test_seal_makes_files_read_only_and_keeps_only_inner_links(tmp_path):
    root = entry(tmp_path)
    assert not cache.tampered(root)
    assert stat.S_IMODE((root / "kernel_exe").stat().st_mode) == 0o555
    assert stat.S_IMODE((root / "lib" / "libk.so.1").stat().st_mode) == 0o444
    assert (root / "lib" / "libk.so").is_symlink()
    assert not any(os.path.lexists(root / p) for p in ("lib/outside", "lib/up", "pipe"))


def test_changes_after_the_seal_are_found(tmp_path):
    root = entry(tmp_path)
    exe = root / "kernel_exe"
    exe.chmod(0o755)
    exe.write_bytes(b"forged")
    (root / "lib" / "libk.so").unlink()
    os.symlink("../kernel_exe", root / "lib" / "libk.so")
    assert sorted(cache.tampered(root)) == ["kernel_exe", "lib/libk.so"]
    assert cache.tampered(root, only=["lib/libk.so.1"]) == []

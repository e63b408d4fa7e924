"""Find a CANN toolkit install and describe it (no imports of anything CANN-specific)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_ROOTS = ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann", str(Path.home() / "Ascend/ascend-toolkit/latest")]


@dataclass(frozen=True)
class CannInstall:
    root: Path
    version: str | None
    source: str             # which variable or default path pointed at it

    @property
    def major(self) -> int | None:
        m = re.match(r"(\d+)", self.version or "")
        return int(m.group(1)) if m else None


def _version(root: Path) -> str | None:
    for candidate in [root / "version.cfg", root / "compiler" / "version.info", root / "runtime" / "version.info",
                      *sorted(root.glob("*/version.info"))]:
        try:
            text = candidate.read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"(?:^|\n)\s*(?:Version|version)\s*=\s*([\w.\-]+)", text) or re.search(r"_version=([\w.\-]+)", text)
        if m:
            return m.group(1)
    return None


def detect_cann(env: dict[str, str] | None = None) -> CannInstall | None:
    env = dict(os.environ if env is None else env)
    candidates = [(env.get(v), v) for v in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_CANN_PACKAGE_PATH")]
    candidates += [(p, "default path") for p in DEFAULT_ROOTS]
    for path, source in candidates:
        if path and Path(path).is_dir():
            root = Path(path).resolve()
            return CannInstall(root=root, version=_version(root), source=source)
    return None

"""Read NPUKernelBench `test_cases.csv` (`;`-separated) and type the cells the way the benchmark's
harness sees them (pandas `read_csv` + its `preprocess_dataframe`): a column is bool when every
cell is true/false, numeric when every cell is a number (int when all are integral and none is
missing), else text. Missing cells become None (the worker hands them to the task as NaN)."""
from __future__ import annotations

import csv
import io
from typing import Any

# pandas' default NA spellings
_NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
       "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}
_TRUE, _FALSE = {"True", "TRUE", "true"}, {"False", "FALSE", "false"}


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def _column(cells: list[str]) -> list[Any]:
    present = [c for c in cells if c not in _NA]
    if present and all(c in _TRUE | _FALSE for c in present):
        return [None if c in _NA else c in _TRUE for c in cells]
    numbers = [_number(c) for c in present]
    if present and all(n is not None for n in numbers):
        integral = len(present) == len(cells) and all(float(n).is_integer() for n in numbers)  # type: ignore[arg-type]
        return [None if c in _NA else (int(float(c)) if integral else float(c)) for c in cells]
    return [None if c in _NA else c for c in cells]


def read_rows(text: str, source: str = "test_cases.csv") -> list[dict[str, Any]]:
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise ValueError(f"{source}: empty (expected a header such as `case_id;shape;dtype` and one row per case)")
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    for i, r in enumerate(body):
        if len(r) != len(header):
            raise ValueError(f"{source}: line {i + 2} has {len(r)} cells, the header has {len(header)} "
                             f"({';'.join(header)})")
    columns = {h: _column([r[j].strip() for r in body]) for j, h in enumerate(header)}
    return [{h: columns[h][i] for h in header} for i in range(len(body))]

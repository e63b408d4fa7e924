"""Check every API card against a local copy of the real CANN headers, one version per run.

    python -m kernelwright.evals.cards_oracle --headers DIR --cann 8.1 [--soc Ascend910B2 --soc Ascend310P3]
                                              [--card NAME ...] [--json] [--keep DIR] [--cxx clang++]

A developer tool, not a test: CANN's headers cannot be shipped, so nobody else's machine has them.
It writes probe files (probes.py), compiles them syntax-only with clang in CPU-debug mode, and reports
for every card whether it agrees with the headers (checks.py). Exit 0 when every card agrees, 1 when
some disagree, 2 on bad input."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from kernelwright.errors import UserError
from kernelwright.evals.cards_oracle import compiler, probes
from kernelwright.evals.cards_oracle.checks import CardResult, Finding
from kernelwright.evals.cards_oracle.evaluate import evaluate, found_covers
from kernelwright.evals.cards_oracle.layout import Layout, find_layout
from kernelwright.evals.cards_oracle.report import print_report, summary
from kernelwright.knowledge.cards import load_cards
from kernelwright.knowledge.models import ApiCard
from kernelwright.tools.hardware import load_soc


def check(layout: Layout, cards: list[ApiCard], socs: list[str], cxx: str, work: Path) -> list[CardResult]:
    results: dict[str, CardResult] = {}
    covers: set[tuple[str, str]] = set()  # (card, covered name) found on some side
    runs = [("kernel", soc) for soc in socs] + ([("host", socs[0])] if layout.host_dirs else [])
    for side, soc_name in runs:
        soc = load_soc(soc_name)
        unit = probes.build(cards, side, layout.kernel_includes if side == "kernel" else layout.host_includes,
                            layout.version, soc.npu_arch if side == "kernel" else "")
        dirs = layout.kernel_dirs if side == "kernel" else layout.host_dirs
        defines = layout.kernel_defines(soc) if side == "kernel" else ["-D_GLIBCXX_USE_CXX11_ABI=0"]
        path = work / f"probe_{side}_{soc.name}.cpp"
        outcome = compiler.run(unit, path, cxx, dirs, defines)
        print(f"compiled {len(unit.probes)} probes ({side}, {soc.name}) in {outcome.seconds:.0f} s", file=sys.stderr)
        if any(d.severity == "fatal error" for d in outcome.unplaced):
            fatal = next(d for d in outcome.unplaced if d.severity == "fatal error")
            raise UserError(f"the {side} probe file does not compile at all ({fatal.file}:{fatal.line}: {fatal.message}); "
                            f"the header layout under {layout.root} is incomplete")
        per_card: dict[str, list] = {}
        for i, probe in enumerate(unit.probes):
            per_card.setdefault(probe.card, []).append((probe, outcome.diags.get(i, [])))
        covers |= {(card, name) for card, answers in per_card.items() for name in found_covers(answers)}
        for card in cards:
            if card.side != side or (side == "kernel" and card.archs and soc.npu_arch not in card.archs):
                continue
            result = evaluate(card, layout.version, per_card.get(card.name, []), str(path),
                              soc.npu_arch if side == "kernel" else "")
            _merge(results, result, soc.name, first=soc_name == socs[0] or side == "host")
    layout.notes += [f"{c.name}: host card, not checked" for c in cards if c.side == "host" and not layout.host_dirs]
    for result in results.values():
        card = result.card
        for name in (n for n in card.covers if (card.name, n) not in covers and card.in_headers):
            if not layout.host_dirs:  # it may be a host-side name
                result.findings.append(Finding("exists", True, f"covered name '{name}' is not in the kernel headers "
                                                               f"(host headers not checked)"))
                continue
            result.findings.append(Finding("exists", not card.holds_for(layout.version),
                                           f"covered name '{name}' is not in the {layout.version} headers"))
    return list(results.values())


def _merge(results: dict[str, CardResult], result: CardResult, soc: str, first: bool) -> None:
    """Findings of a second SoC add only what differs from the first, marked with the SoC."""
    if result.card.name not in results:
        results[result.card.name] = result
        if not first:
            for f in result.findings:
                f.message = f"[{soc}] {f.message}"
        return
    seen = {(f.check, f.message) for f in results[result.card.name].findings}
    for f in result.disagreements:
        if (f.check, f.message) not in seen:
            results[result.card.name].findings.append(Finding(f.check, False, f"[{soc}] {f.message}", f.card_line))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernelwright.evals.cards_oracle", description=__doc__.split("\n")[0])
    parser.add_argument("--headers", type=Path, required=True, help="a CANN install, or a folder holding a copy of its headers")
    parser.add_argument("--cann", required=True, help="the version those headers are: 8.1, 8.2, 9.0, ...")
    parser.add_argument("--soc", action="append", help="SoC(s) to compile kernel probes for (default: the default SoC)")
    parser.add_argument("--card", action="append", help="check only these cards")
    parser.add_argument("--cxx", help="the clang++ to use")
    parser.add_argument("--keep", type=Path, help="keep the probe files and forwarding headers in this folder")
    parser.add_argument("--json", action="store_true", help="print every finding as JSON")
    parser.add_argument("--all", action="store_true", help="also list the agreeing findings")
    args = parser.parse_args(argv)
    try:
        cards = [c for c in load_cards() if not args.card or c.name in args.card]
        if not cards:
            raise UserError(f"--card {args.card}: no such card")
        socs = args.soc or [load_soc(None).name]
        cxx = compiler.find_clang(args.cxx)
        with tempfile.TemporaryDirectory(prefix="kw-oracle-") as tmp:
            work = args.keep or Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            layout = find_layout(args.headers.resolve(), args.cann, work / "shim")
            results = check(layout, cards, socs, cxx, work)
    except UserError as e:
        print(f"cards oracle: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"summary": summary(results, layout), "cards": [
            {"card": r.card.name, "path": r.card.path, "status": r.status,
             "findings": [vars(f) for f in r.findings if args.all or not f.ok]} for r in results]}, indent=1))
    else:
        print_report(results, layout, show_all=args.all)
    return 1 if any(r.disagreements for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

"""`kernelwright docs ...`: the offline AscendC knowledge base (API cards, concepts, hardware profiles,
your own documents, past fixes): search it, build its index, add and remove documents."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from kernelwright.agent.config import load_config
from kernelwright.errors import UserError
from kernelwright.knowledge.models import KINDS
from kernelwright.knowledge.versions import target_cann
from kernelwright.terminal_text import printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("docs", help="search the offline AscendC knowledge base; add your own documentation",
                       description="The offline knowledge base. Exit 0 on success, 2 on bad input.")
    actions = p.add_subparsers(dest="docs_action", metavar="ACTION", required=True)
    s = actions.add_parser("search", help="exact symbol lookup, then semantic + keyword search")
    s.add_argument("query", help="a question, an API name or a compiler message")
    s.add_argument("--k", type=int, default=5, help="number of results (default 5)")
    s.add_argument("--kind", action="append", choices=KINDS, help="only these kinds (repeatable)")
    s.add_argument("--soc", help="only documents that apply to this SoC, e.g. Ascend310P3")
    s.add_argument("--cann", choices=["8.x", "9.x"],
                   help="show an API absent from this CANN version as its replacement "
                        "(default: toolchain.cann / KERNELWRIGHT_CANN, else the installed one's)")
    s.add_argument("--full", action="store_true", help="print whole passages")
    s.add_argument("--json", action="store_true", help="print the passages as JSON")
    b = actions.add_parser("build", help="build or update the index now (it is also built on first search)")
    b.add_argument("--force", action="store_true", help="re-embed everything from scratch")
    a = actions.add_parser("add", help="add Markdown, HTML, text or C/C++ headers (files or folders)")
    a.add_argument("paths", nargs="+", metavar="PATH")
    r = actions.add_parser("remove", help="remove added documents by id, file path or folder")
    r.add_argument("targets", nargs="+", metavar="PATH|ID")
    ls = actions.add_parser("list", help="what the knowledge base holds and whether the index is current")
    ls.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return {"search": _search, "build": _build, "add": _add, "remove": _remove, "list": _list}[args.docs_action](args)


def _retriever():
    from kernelwright.knowledge.retriever import IndexRetriever

    return IndexRetriever()


def _search(args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UserError(f"--k must be at least 1, got {args.k}")
    retriever = _retriever()
    if not retriever.is_current():  # the search may have to embed the corpus first: say so
        print("kernelwright docs: the index is not built or out of date; it is built now if the search needs "
              "more than exact matches (about half a minute once)", file=sys.stderr)
    cann = args.cann or target_cann(load_config().toolchain.cann)
    passages = retriever.search(args.query, k=args.k, kinds=args.kind, soc=args.soc, cann=cann)
    if args.json:
        print(json.dumps([p.model_dump() for p in passages], indent=1))
        return 0
    if not passages:
        print("no results")
    for n, p in enumerate(passages, 1):
        print(printable(f"[{n}] {p.doc_id}  ({p.match}, {p.score:.2f})  {p.cite()}"))
        lines = p.text.strip().splitlines()
        for line in lines if args.full else lines[:8]:
            print(printable(f"    {line}"))
        if not args.full and len(lines) > 8:
            print(f"    … ({len(lines) - 8} more lines; --full shows all)")
    return 0


def _build(args: argparse.Namespace) -> int:
    report = _retriever().build(force=args.force)
    state = "rebuilt" if report.rebuilt else "updated" if report.added or report.removed else "already current"
    print(f"index {state}: {report.chunks} chunks (+{report.added} −{report.removed}) in {report.seconds:.1f} s")
    return 0


def _add(args: argparse.Namespace) -> int:
    from kernelwright.knowledge.user_docs import UserDocs

    for doc in UserDocs().add_paths([Path(p) for p in args.paths]):
        print(f"added {doc.id}: {len(doc.chunks)} chunk(s) from {doc.path}")
    print("the index picks them up on the next search (or run `kernelwright docs build`)")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from kernelwright.knowledge.user_docs import UserDocs

    docs = UserDocs()
    for target in args.targets:
        for doc in docs.remove(target):
            print(f"removed {doc.id} ({doc.path})")
    return 0


def _list(args: argparse.Namespace) -> int:
    from collections import Counter

    from kernelwright.knowledge.builtin import builtin_chunks

    retriever = _retriever()
    builtin = Counter(kind for kind, _ in {(c.kind, c.doc_id) for c in builtin_chunks()})
    user = retriever.user_docs.list()
    fixes = retriever.fixes.all()
    manifest = retriever.index.manifest()
    info = {"builtin_documents": dict(sorted(builtin.items())),
            "user_documents": [{"id": d.id, "path": d.path, "chunks": len(d.chunks), "added": d.added} for d in user],
            "fixes": len(fixes), "index": {"path": str(retriever.index.dir), "current": retriever.is_current(),
                                           "built_at": manifest.get("built_at"), "chunks": manifest.get("chunks")}}
    if args.json:
        print(json.dumps(info, indent=1))
        return 0
    print("built-in: " + ", ".join(f"{n} {kind}" for kind, n in info["builtin_documents"].items()))
    for d in info["user_documents"]:
        print(f"user: {d['id']}  {d['path']}  ({d['chunks']} chunks, added {d['added']})")
    print(f"fixes: {info['fixes']}")
    index = info["index"]
    state = "current" if index["current"] else "needs a build (runs on the next search)"
    print(f"index: {index['path']} — {state}" + (f", {index['chunks']} chunks built {index['built_at']}" if index["built_at"] else ""))
    return 0

"""Build the knowledge index from scratch and measure retrieval on the evaluation sets.

    python -m kernelwright.evals.retrieval.bench [--k 3] [--json] [--home DIR] [--cann 8.x|9.x]

Reports recall@k (a hit is any expected document in the top k) and MRR over the top 10 for the tuned
set (queries.yaml, used while designing retrieval), the held-out set (queries_heldout.yaml, never
tuned on) and both; the index build time (model load and embedding/indexing separately) and query
latency, each as wall-clock and as this process's CPU time (on a shared machine wall-clock mostly
measures the other tenants). With --cann, the sets are also searched as the agent searches for that
target version (an API absent from it replaced by its use_instead) and reported under `cann <version>:`."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml
from pydantic import BaseModel

QUERIES = Path(__file__).with_name("queries.yaml")  # the set the retrieval design was tuned on
HELDOUT = Path(__file__).with_name("queries_heldout.yaml")  # written afterwards, never tuned on
DEPTH = 10  # ranks looked at for MRR


class Query(BaseModel):
    id: str
    type: str
    query: str
    expect: list[str]


class QueryResult(BaseModel):
    set: str
    id: str
    type: str
    rank: int | None  # 1-based rank of the first expected document, None if not in the top DEPTH
    top: list[str]
    ms: float
    cpu_ms: float


def load_queries(path: Path = QUERIES) -> list[Query]:
    return [Query(**item) for item in yaml.safe_load(path.read_text())]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _timed(fn):
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - start, time.process_time() - cpu


def evaluate(retriever, k: int, cann: str | None = None) -> list[QueryResult]:
    results = []
    for name, path in (("tuned", QUERIES), ("heldout", HELDOUT)):
        for q in load_queries(path):
            passages, seconds, cpu = _timed(lambda: retriever.search(q.query, k=DEPTH, cann=cann))
            ids = [p.doc_id for p in passages]
            rank = next((i + 1 for i, doc in enumerate(ids) if doc in q.expect), None)
            results.append(QueryResult(set=name, id=q.id, type=q.type, rank=rank, top=ids[:k],
                                       ms=round(seconds * 1000, 2), cpu_ms=round(cpu * 1000, 2)))
    return results


def summarise(results: list[QueryResult], k: int) -> dict:
    def recall(group: list[QueryResult]) -> float:
        return round(sum(r.rank is not None and r.rank <= k for r in group) / len(group), 3)

    summary: dict = {}
    for name in ("tuned", "heldout", "all"):
        group = [r for r in results if name in (r.set, "all")]
        summary[f"{name}: queries"] = len(group)
        summary[f"{name}: recall@{k}"] = recall(group)
        summary[f"{name}: mrr"] = round(sum(1 / r.rank for r in group if r.rank) / len(group), 3)
    for kind in sorted({r.type for r in results}):
        summary[f"all: recall@{k}[{kind}]"] = recall([r for r in results if r.type == kind])
    summary["latency_p50_ms"] = round(statistics.median(r.ms for r in results), 1)
    summary["latency_p95_ms"] = round(percentile([r.ms for r in results], 0.95), 1)
    summary["latency_p50_cpu_ms"] = round(statistics.median(r.cpu_ms for r in results), 1)
    return summary


def run(home: Path, k: int, cann: str | None = None) -> dict:
    from kernelwright.knowledge.embedding import embedding_function
    from kernelwright.knowledge.retriever import IndexRetriever

    _, model_s, model_cpu = _timed(embedding_function)  # imports sentence-transformers, loads the model
    retriever = IndexRetriever(home)
    report, build_s, build_cpu = _timed(lambda: retriever.build(force=True))
    retriever.search("warm up", k=k)
    results = evaluate(retriever, k)
    summary = {"k": k, "chunks": report.chunks, "model_load_s": round(model_s, 2), "model_load_cpu_s": round(model_cpu, 2),
               "index_build_s": round(build_s, 2), "index_build_cpu_s": round(build_cpu, 2),
               **summarise(results, k), "cpus": os.cpu_count(), "load_avg_1min": round(os.getloadavg()[0], 2)}
    if cann:
        filtered = evaluate(retriever, k, cann)
        summary |= {f"cann {cann}: {key}": value for key, value in summarise(filtered, k).items()
                    if key.split(":")[0] in ("tuned", "heldout", "all") and "[" not in key}
        results += [r.model_copy(update={"set": f"{r.set} (cann {cann})"}) for r in filtered]
    return {"summary": summary, "misses": [r.model_dump() for r in results if not r.rank or r.rank > k],
            "results": [r.model_dump() for r in results]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernelwright.evals.retrieval.bench",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--home", type=Path, help="index location (default: a fresh temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--cann", choices=["8.x", "9.x"], help="also search as for this target CANN version")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kw-bench-") as tmp:
        out = run(args.home or Path(tmp), args.k, args.cann)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for key, value in out["summary"].items():
        print(f"{key:>26}: {value}")
    for miss in out["misses"]:
        print(f"miss {miss['set']}/{miss['id']} (rank {miss['rank']}): top {miss['top']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

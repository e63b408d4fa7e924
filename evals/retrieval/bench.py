"""Build the knowledge index from scratch and measure retrieval on the evaluation set.

    python -m kernelwright.evals.retrieval.bench [--k 3] [--json] [--home DIR]

Reports recall@k (a hit is any expected document in the top k), MRR over the top 10, the index build
time (model load and embedding/indexing separately) and query latency percentiles, each as wall-clock
and as this process's CPU time (wall-clock on a shared machine mostly measures the other tenants)."""
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

QUERIES = Path(__file__).with_name("queries.yaml")
DEPTH = 10  # ranks looked at for MRR


class Query(BaseModel):
    id: str
    type: str
    query: str
    expect: list[str]


class QueryResult(BaseModel):
    id: str
    type: str
    rank: int | None  # 1-based rank of the first expected document, None if not in the top DEPTH
    top: list[str]
    ms: float


def load_queries(path: Path = QUERIES) -> list[Query]:
    return [Query(**item) for item in yaml.safe_load(path.read_text())]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(home: Path, k: int) -> dict:
    from kernelwright.knowledge.embedding import embedding_function
    from kernelwright.knowledge.retriever import IndexRetriever

    start, cpu = time.perf_counter(), time.process_time()
    embedding_function()  # imports sentence-transformers and loads the model
    model_seconds, model_cpu = time.perf_counter() - start, time.process_time() - cpu
    retriever = IndexRetriever(home)
    cpu = time.process_time()
    report = retriever.build(force=True)
    build_cpu = time.process_time() - cpu
    retriever.search("warm up", k=k)
    results, cpu_ms = [], []
    for q in load_queries():
        t0, c0 = time.perf_counter(), time.process_time()
        passages = retriever.search(q.query, k=DEPTH)
        ms = (time.perf_counter() - t0) * 1000
        cpu_ms.append((time.process_time() - c0) * 1000)
        ids = [p.doc_id for p in passages]
        rank = next((i + 1 for i, doc in enumerate(ids) if doc in q.expect), None)
        results.append(QueryResult(id=q.id, type=q.type, rank=rank, top=ids[:k], ms=round(ms, 2)))
    summary = {"queries": len(results), "k": k,
               f"recall@{k}": round(sum(r.rank is not None and r.rank <= k for r in results) / len(results), 3),
               "mrr": round(sum(1 / r.rank for r in results if r.rank) / len(results), 3),
               "chunks": report.chunks, "model_load_s": round(model_seconds, 2),
               "model_load_cpu_s": round(model_cpu, 2), "index_build_s": round(report.seconds, 2),
               "index_build_cpu_s": round(build_cpu, 2),
               "latency_p50_ms": round(statistics.median(r.ms for r in results), 1),
               "latency_p95_ms": round(percentile([r.ms for r in results], 0.95), 1),
               "latency_p50_cpu_ms": round(statistics.median(cpu_ms), 1), "cpus": os.cpu_count(),
               "load_avg_1min": round(os.getloadavg()[0], 2)}
    for kind in sorted({r.type for r in results}):
        group = [r for r in results if r.type == kind]
        summary[f"recall@{k}[{kind}]"] = round(sum(r.rank is not None and r.rank <= k for r in group) / len(group), 3)
    return {"summary": summary, "misses": [r.model_dump() for r in results if not r.rank or r.rank > k],
            "results": [r.model_dump() for r in results]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernelwright.evals.retrieval.bench", description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--home", type=Path, help="index location (default: a fresh temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kw-bench-") as tmp:
        out = run(args.home or Path(tmp), args.k)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    for key, value in out["summary"].items():
        print(f"{key:>24}: {value}")
    for miss in out["misses"]:
        print(f"miss {miss['id']} (rank {miss['rank']}): top {miss['top']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

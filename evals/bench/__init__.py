"""`kernelwright bench SUITE`: a headless batch over a benchmark, resumable, with reports.

    suite.py     which tasks (builtin suite, benchmark trees, list files) and --filter
    runner.py    one worker process per (task, attempt), jobs in parallel, wall-clock limits, resume
    worker.py    the worker: runs the agent and writes its record
    records.py   results.jsonl
    metrics.py   rates, pass@k, pass by repair round, per category and level
    reports.py   summary.json, summary.csv; html.py: report.html with inline SVG plots
"""

"""`kernelwright bench SUITE`: a headless batch over a benchmark, resumable, with reports.

    suite.py     which tasks (builtin suite, benchmark trees, list files) and --filter
    options.py   what a bench was asked to do (BenchOptions), BenchError
    runner.py    the driver: what is left to run goes to an executor; records appended here alone; resume
    tries.py     one try as a worker process in its own session, wall-clock limit, crash/timeout records
    local.py     the local executor: `jobs` tries at a time on this machine (the default)
    ray_driver.py, ray_node.py   the Ray executor (`--executor ray`): a Ray task per try, lost tries
                 retried then recorded as infrastructure failures, artifacts shipped back; Ray loads here only
    worker.py    the worker: runs the agent and writes its record
    records.py   results.jsonl
    metrics.py   rates, pass@k, pass by repair round, per category and level
    reports.py   summary.json, summary.csv; html.py: report.html with inline SVG plots
"""

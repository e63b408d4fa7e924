"""Hand-written DSL programs for the cube and index tasks, refereed on the emulation: our own tasks
(evals/suite: matmul, convolution, index, resize) and, with --mkb, MultiKernelBench's matmul, index,
convolution and resize references at their own shapes (shrunk as the referee shrinks them). Prints, per task, the
verdict, the case shapes the referee ran (and the task's own when shrunk), the build and verify wall times,
and each emulated run's time.

    python -m kernelwright.evals.cube_tasks [--mkb MultiKernelBench/reference] [--only NAME ...] [--out FILE]

The programs are prompts/examples/* and evals/cube_programs/* (ours); MultiKernelBench's files are read
from the tree you give and never copied.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "prompts" / "examples"
PROGRAMS = HERE / "cube_programs"

OWN = {   # evals/suite task -> program
    "matmul/matmul_square": "ex:matmul/matmul", "matmul/matmul_ragged": "ex:matmul/matmul",
    "matmul/matmul_long_k": "ex:matmul/matmul", "matmul/matmul_transposed_a": "matmul_ta",
    "matmul/matmul_transposed_b": "matmul_tb", "matmul/bmm": "ex:matmul/bmm", "matmul/matvec": "ex:matmul/matvec",
    "matmul/linear_bias": "linear", "matmul/linear_gelu": "ex:matmul/linear_gelu", "matmul/matmul_relu_fp16": "matmul_relu",
    "convolution/conv2d_strided": "ex:convolution/conv2d_im2col", "index/gather_last": "ex:index/gather",
    "index/take_along_dim": "ex:index/gather", "index/embedding": "ex:index/embedding",
    "index/index_select_rows": "index_select_rows", "index/scatter_add_last": "ex:index/scatter_add",
    "index/masked_fill": "masked_fill_zero", "index/where_tensors": "ex:index/where",
    "resize/bilinear_upsample": "ex:resize/bilinear",
}
MKB = {   # MultiKernelBench reference (category/name) -> program
    "matmul/standard_matrix_multiplication": "ex:matmul/matmul", "matmul/square_matrix_multiplication": "ex:matmul/matmul",
    "matmul/matmul_with_irregular_shapes": "ex:matmul/matmul", "matmul/matmul_with_large_k_dimension": "ex:matmul/matmul",
    "matmul/matmul_with_small_k_dimension": "ex:matmul/matmul", "matmul/tall_skinny_matrix_multiplication": "ex:matmul/matmul",
    "matmul/matmul_with_transposed_a": "matmul_ta", "matmul/matmul_with_transposed_b": "matmul_tb",
    "matmul/matmul_with_transposed_both": "ex:matmul/matmul_tt", "matmul/batched_matrix_multiplication": "ex:matmul/bmm",
    "matmul/matrix_vector_multiplication": "mkb/matvec_column", "matmul/four_dim_tensor_matrix_multiplication": "mkb/tensor_matmul_4d",
    "index/gather": "ex:index/gather", "index/take_along_dim": "ex:index/gather", "index/embedding": "ex:index/embedding",
    "index/index_select": "mkb/index_select_cols", "index/scatter_add": "ex:index/scatter_add", "index/scatter": "ex:index/scatter",
    "index/masked_fill": "ex:index/masked_fill",
    "resize/bilinear_upsample": "ex:resize/bilinear", "resize/downsample_bilinear": "mkb/bilinear_size",
    "resize/nearest_neighbor_upsample": "mkb/nearest_x4",
    "convolution/conv_standard_2d_square_input_square_kernel": "mkb/conv2d_s4p2",
    "convolution/conv_standard_2d_asymmetric_input_square_kernel": "mkb/conv2d_nobias",
    "convolution/conv_standard_2d_square_input_asymmetric_kernel": "mkb/conv2d_nobias",
    "convolution/conv_standard_2d_asymmetric_input_asymmetric_kernel": "mkb/conv2d_nobias",
}


def program_path(ref: str) -> Path:
    return EXAMPLES / f"{ref[3:]}.dsl.py" if ref.startswith("ex:") else PROGRAMS / f"{ref}.dsl.py"


def run_one(task_path: Path, program: Path, sim) -> dict:
    from kernelwright.tools.dsl.lower import lower
    from kernelwright.tools.dsl.parse_program import parse_file
    from kernelwright.tools.referee import verify
    from kernelwright.tools.tasks.load import load_task

    task = load_task(task_path)
    t0 = time.perf_counter()
    project = lower(parse_file(program), task.op_type)
    build = sim.build(project)
    t1 = time.perf_counter()
    v = verify(task, project, sim, trials=1, recheck=False)
    t2 = time.perf_counter()
    return {"task": str(task_path), "program": program.name, "status": v.status, "summary": v.summary[:300],
            "cases": [f"{r.case}: {r.status} {r.run_shapes}" + (f" (from {r.original_shapes})" if r.shrunk else "")
                      + f" {r.seconds:.1f} s" for r in v.runs],
            "skipped": dict(v.skipped_cases), "build_s": round(t1 - t0, 1) if build.ok else None,
            "verify_s": round(t2 - t1, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mkb", type=Path, help="a MultiKernelBench `reference` directory: run its tasks too")
    ap.add_argument("--only", nargs="*", default=None, help="only tasks whose name contains one of these")
    ap.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    pairs = [(HERE / "suite" / f"{k}.py", program_path(v)) for k, v in OWN.items()]
    if args.mkb:
        pairs += [(args.mkb / f"{k}.py", program_path(v)) for k, v in MKB.items() if (args.mkb / f"{k}.py").is_file()]
    if args.only:
        pairs = [(t, p) for t, p in pairs if any(o in str(t) for o in args.only)]
    os.environ.setdefault("KERNELWRIGHT_HOME", tempfile.mkdtemp(prefix="kw-cube-tasks-"))
    from kernelwright.tools.sim.toolchain import SimToolchain
    sim = SimToolchain()
    rows = []
    for task, program in pairs:
        row = run_one(task, program, sim)
        rows.append(row)
        print(f"{row['status']:5} {task.parent.name}/{task.stem:45} {program.name:28} build {row['build_s']} s, verify "
              f"{row['verify_s']} s; cases (shapes run, emulated run time): {'; '.join(row['cases'])}"
              + (f" | {row['summary']}" if row["status"] != "pass" else ""), flush=True)
    passed = sum(r["status"] == "pass" for r in rows)
    print(f"{passed}/{len(rows)} pass")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark submission formats: read any of them into a KernelProject, write a KernelProject in
any of them.

    mkb         MultiKernelBench six strings (one .py file)             msopgen
    mkb-direct  MultiKernelBench direct-launch JSON                     kernel-launch
    npukb       NPUKernelBench three sections or <kernel_impl> (text)   msopgen
    akb         AscendKernelBench custom_op.asc + model_new.py          kernel-launch
    cann        plain CANN msopgen project directory (build.sh)         msopgen
    sol         SOL-ExecBench solution.json (npu-kernelbench, AKG)      either (+ C++ binding)

`load(path)` detects the format from the content (never by running it); `loads(text)` does the
same for text in hand (a model reply); `render(project, fmt)` gives the files as text and
`export(project, fmt, out)` writes them."""
from __future__ import annotations

from kernelwright.tools.formats.registry import FORMATS, export, load, loads, render

__all__ = ["FORMATS", "export", "load", "loads", "render"]

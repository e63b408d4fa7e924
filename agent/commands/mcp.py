"""`kernelwright mcp`: serve generate_kernel, verify_kernel, lower_dsl and search_docs to an MCP host
(Claude Code, Codex, OpenCode, ...) over stdio. mcp is imported only here."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="MCP server (stdio): generate_kernel, verify_kernel, lower_dsl, search_docs",
                       description="Serve kernelwright's tools over MCP on stdin/stdout (stdout carries only the "
                                   "protocol; logs go to stderr). Register it in an MCP host as the command "
                                   "`kernelwright mcp`.")
    p.add_argument("--runs", default=None, help="where generated runs go (default: $KERNELWRIGHT_HOME/runs)")
    p.add_argument("--config", default=None, help="agent config file (.yaml or .toml) for generate_kernel")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from kernelwright.agent.config import load_config
    from kernelwright.knowledge.paths import kernelwright_home

    config = load_config(args.config)
    from kernelwright.agent.plugins.mcp_server import serve
    serve(runs=args.runs or kernelwright_home() / "runs", config=config)
    return 0

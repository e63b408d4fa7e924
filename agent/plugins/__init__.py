"""kernelwright inside other agent frameworks: the four operations (`ops`, typed by `schemas`) as an
MCP server (`mcp_server`, imports mcp) and as LangChain tools (`langchain_tools`, imports
langchain-core), and the agent's LangGraph graph as a subgraph (`subgraph`). Runnable examples are
in `examples/`."""

"""The graph nodes: one module each (planner, dsl_writer, lowerer, verify, debugger, review points, finish)."""

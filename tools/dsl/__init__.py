"""The kernel DSL: programs parsed with `ast` (never executed), static rules, a NumPy interpreter
(also a Toolchain backend, `toolchain.InterpToolchain`), and lowering to an msopgen project."""

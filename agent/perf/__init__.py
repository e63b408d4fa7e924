"""The performance phase (perf.enabled): after a kernel passes, search its tiling knobs and, with a
model, ask the optimiser for faster programs; keep the fastest candidate the same referee passes.
node.py is the graph node; search.py the knob search; judge.py judges one candidate; optimiser.py
the model step; speed.py reads a verdict's time."""

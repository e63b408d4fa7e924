"""The NumPy interpreter of kernel IR: a real Unified Buffer arena per block, GM with writer
shadows, numerics per dtype."""

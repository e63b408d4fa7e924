"""Build pieces every backend shares (the emulation, CANN, the CANN syntax check): the content-keyed
build cache, the sandbox that runs compilers and kernels under limits, the compiler-output parser,
and source preparation. Nothing here knows a particular backend."""

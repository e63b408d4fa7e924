DESCRIPTION = 'PipeBarrier takes a pipe_t (PIPE_V, PIPE_MTE2...), not a HardEvent.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no matching function for call to 'PipeBarrier'", 'file': 'pipebarrier_hardevent.cpp', 'line': 24}

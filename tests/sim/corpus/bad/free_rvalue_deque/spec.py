DESCRIPTION = 'FreeTensor takes a non-const LocalTensor&, so the temporary from DeQue cannot be passed.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'memory_object', 'message_contains': 'FreeTensor', 'file': 'free_rvalue_deque.cpp', 'line': 27}

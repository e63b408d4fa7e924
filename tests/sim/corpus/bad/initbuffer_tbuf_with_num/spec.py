DESCRIPTION = 'TPipe::InitBuffer(buf, num, len) is for queues; a TBuf takes InitBuffer(buf, len).'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'memory_object', 'message_contains': 'not supports T as TBuf', 'file': 'initbuffer_tbuf_with_num.cpp', 'line': 15}

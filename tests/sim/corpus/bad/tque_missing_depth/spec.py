DESCRIPTION = 'TQue needs both the position and the depth: TQue<QuePosition::VECIN> is too few template arguments.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "too few template arguments for class template 'TQue'", 'file': 'tque_missing_depth.cpp', 'line': 33}

DESCRIPTION = 'A non-constant int in the braces of BinaryRepeatParams narrows to uint8_t: an error under bisheng/clang.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'data_type', 'message_contains': "cannot be narrowed from type 'int' to 'uint8_t'", 'file': 'narrowing_repeat_params.cpp', 'line': 24}

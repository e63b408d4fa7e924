DESCRIPTION = 'AscendC::Softmax(y, x, n) does not exist: the API is SoftMax, with tiling arguments.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no member named 'Softmax' in namespace 'AscendC'", 'file': 'softmax_lowercase_three_args.cpp', 'line': 23}

DESCRIPTION = 'DataCopyParams has a 0- and a 4-argument constructor only; {blockCount, blockLen} does not compile.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no matching constructor for initialization of 'DataCopyParams'", 'file': 'datacopyparams_two_args.cpp', 'line': 27}

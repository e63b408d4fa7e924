DESCRIPTION = 'Adds on a half tensor with a float literal: T is deduced as both half and float.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'data_type', 'message_contains': "no matching function for call to 'Adds'", 'file': 'adds_float_literal_half.cpp', 'line': 24}

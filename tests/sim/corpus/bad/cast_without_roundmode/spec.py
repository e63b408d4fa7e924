DESCRIPTION = 'Cast always takes a RoundMode: Cast(dst, src, n) has too few arguments.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no matching function for call to 'Cast'", 'file': 'cast_without_roundmode.cpp', 'line': 25}

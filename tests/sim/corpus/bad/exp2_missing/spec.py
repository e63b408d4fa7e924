DESCRIPTION = 'There is no Exp2 in AscendC (exp2 is Muls by ln 2, then Exp).'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no member named 'Exp2' in namespace 'AscendC'", 'file': 'exp2_missing.cpp', 'line': 23}

DESCRIPTION = 'Neg exists only from CANN 9; on 8.x write Muls by -1.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'scope_lifetime', 'message_contains': "use of undeclared identifier 'Neg'", 'file': 'neg_cann9_only.cpp', 'line': 23}

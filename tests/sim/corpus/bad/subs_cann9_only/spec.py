DESCRIPTION = 'Subs exists only from CANN 9; on 8.x write Adds with the negated scalar.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'scope_lifetime', 'message_contains': "use of undeclared identifier 'Subs'", 'file': 'subs_cann9_only.cpp', 'line': 23}

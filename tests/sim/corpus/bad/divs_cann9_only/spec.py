DESCRIPTION = 'Divs exists only from CANN 9; on 8.x write Muls with the reciprocal.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'api_signature', 'message_contains': "no member named 'Divs' in namespace 'AscendC'", 'file': 'divs_cann9_only.cpp', 'line': 23}

DESCRIPTION = 'LocalTensor::operator[] returns a tensor view, not an element: t[0] = h does not compile.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'memory_object', 'message_contains': "no viable overloaded '='", 'file': 'assign_through_index.cpp', 'line': 24}

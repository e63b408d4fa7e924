DESCRIPTION = 'DeQue<half>() returns LocalTensor<half>, which does not convert to LocalTensor<float>.'
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'data_type', 'message_contains': "no viable conversion from 'LocalTensor<half>' to 'LocalTensor<float>'", 'file': 'deque_wrong_type.cpp', 'line': 21}

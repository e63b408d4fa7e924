DESCRIPTION = "SetGlobalBuffer wants __gm__ half*, not the kernel's GM_ADDR (uint8_t*): cast it first."
EXPECT = {'stage': 'build', 'status': 'compile_error', 'category': 'data_type', 'message_contains': "no matching member function for call to 'SetGlobalBuffer'", 'file': 'setglobalbuffer_gm_addr.cpp', 'line': 11}

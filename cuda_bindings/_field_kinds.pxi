# Field kinds of the struct tables (ints for a fast switch): the generated _STRUCTS lines use
# these numbers; _base.pyx (the tuple-style modules' struct classes) and _records.pyx (the
# struct classes of cufile, nvml, nvfatbin and cudla) read them.
DEF F_I = 1        # signed int of size n
DEF F_U = 2        # unsigned int of size n
DEF F_F = 3        # float/double of size n
DEF F_ENUM = 4
DEF F_HANDLE = 5
DEF F_INTV = 6     # integer typedef class
DEF F_STRUCT = 7   # nested struct (view)
DEF F_CHARS = 8    # char[n] -> bytes
DEF F_ARRAY = 9    # T[n] -> list
DEF F_VOIDP = 10   # void* (int), keeps a Python buffer alive
DEF F_CSTR = 11    # char* -> bytes
DEF F_PTRARR = 12  # T* -> list: the items set from Python, else as many as the count field says
DEF F_BOOL = 13
DEF F_KPARAMS = 14  # void** kernel parameters: every form cuLaunchKernel accepts
DEF F_INTPTR = 15  # T* of an integer typedef, one value: read as an object viewing it

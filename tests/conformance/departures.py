"""Deliberate departures from NVIDIA's cuda-bindings (the twin of each CUDA release: run.TWINS),
one line each.

Every observation in which our package differs from the reference fails the conformance test
unless an entry here covers it.  An entry is
    (probe id pattern, expected observations, releases, reason)
* the pattern is a glob over probe ids (`fnmatch`), or a regular expression when it starts with
  "re:";
* expected observations: None (any difference at the matching ids) or a pair (ours, reference),
  each None (anything) or a dict that the observation must contain key for key ("*": any value),
  e.g. ({"exc": "TypeError"}, {"exc": "AttributeError"}); an entry stops covering a probe as soon
  as either side behaves otherwise, so a stale entry shows up as a difference again;
* releases: the CUDA releases whose comparison the entry belongs to, "all" or space-separated
  ("12.9 13.5"); tests/test_conformance.py fails on an entry that covers nothing in a release it
  names;
* the reason says why we differ on purpose (and, for a reference bug, where NVIDIA fixed it).
  Reasons are unique: the test counts the probes each one covers.

Only deliberate, reasoned departures belong here; a difference that is a bug of ours stays out,
so the test keeps failing on it until it is fixed.
"""

DEPARTURES = [
    # --- what a wrong value raises --------------------------------------------------------------
    ("*", ({"exc": "TypeError"}, {"exc": "AttributeError"}),
     "all", "a wrong Python type raises TypeError (the API contract); the reference's AttributeError is an "
     "accident of calling .getPtr()/.value on whatever it was given"),
    ("re:^(nvjitlink|nvvm)\\.fn\\..*:(buf_w|voidp)=", ({"exc": "TypeError"}, {"exc": "ValueError"}),
     "all", "a buffer argument of the wrong type raises TypeError, as in every module (the reference's "
     "nvJitLink and NVVM raise ValueError)"),
    (r"re:(\.fn\..*:handle=float|\.handle\..*\.new\(float\)|\.field\..*:(handle|funcptr|voidpp)\.set=float|:voidpp=float)$",
     ({"exc": "TypeError"}, None),
     "all", "a float is never a handle or an address: handle and void** arguments, fields and constructors "
     "raise TypeError (the reference truncates it to an int)"),
    (r"re:\.field\..*:(enum|handle|voidp|struct)\.set=(bytes|str|list_\w+)$", ({"exc": "IndexError"}, None),
     "all", "a fixed-size array field checks the length of what it is given first (IndexError), then the items"),
    ("*", (None, {"crash": "*"}),
     "all", "the reference crashes the interpreter (a segfault) on this input; nothing can rely on that, so "
     "ours may raise or return instead (what ours does here is not compared)"),
    (r"re:\.field\..*:structptr\.set=(list_int|list_handle|bytes|str)$", None,
     "all", "the reference reads these items as structs (undefined behaviour: a segfault or garbage, by "
     "chance), so the run would be flaky; what ours does here is not compared"),
    (r"re:\.field\..*:handleptr\.set=(list_int|list_struct|bytes|str)$", None,
     "all", "the reference reads these items as handles (undefined behaviour: a segfault or garbage, by "
     "chance), so the run would be flaky; what ours does here is not compared"),

    # --- what ours also takes ----------------------------------------------------------------------
    ("re:^(nvjitlink|nvvm)\\.fn\\..*(=swapped|:cstr=bytes)$", None,
     "all", "nvjitlink and nvvm also take bytes where the reference takes only str (options, names, paths), "
     "like NVRTC and the driver, which take bytes"),
    (r"re:\.fn\..*:(enum|value_inout|attr)=(int|float|handle|numpy)$|\.field\..*:enum\.set=(int|big|neg|float|handle)$",
     (None, {"exc": "AttributeError"}),
     "all", "an enum argument or field takes any integer (a member, a plain int, an object with __index__), "
     "as C does; 13.0.3 calls .value on it (AttributeError); NVIDIA's 13.3.1 takes ints as ours does"),
    (r"re:\.fn\..*:(array|voidpp|jitvalues|kparams)=(int|numpy|bytes|ctypes|handle)$", (None, {"exc": "*"}),
     "all", "a list argument may also be the address or a buffer of a ready-made C array (a numpy array of "
     "the items; one handle or struct: its own storage), as void** arguments are"),
    (r"re:\.fn\..*:jitvalues=str$", ({"exc": "TypeError"}, None),
     "all", "a str is not a list of option values (the reference passes its characters' buffer)"),
    (r"re:\.fn\..*:(voidp|handle_ref|kparams)=(handle|bytes|numpy|ctypes)$", (None, {"exc": "TypeError"}),
     "all", "void* and handle arguments take any handle-like object and buffers (the API contract)"),
    ("*.field.*:voidp.set=handle", (None, {"exc": "TypeError"}),
     "13.0", "a void* field takes a handle object (its value), as void* arguments do (the API contract); "
     "13.0.3 raises TypeError, NVIDIA's 13.3.1 takes it as ours does"),
    (r"re:\.field\..*:(voidp|voidpp|ptrarray|structptr)\.set=(struct|bytes|none|handle)$", (None, {"exc": "TypeError"}),
     "all", "void* and void** fields take what void* arguments take: a struct or buffer (its address), a "
     "handle, None (NULL)"),
    (r"re:\.handle\..*\.new\(none\)$", (None, {"exc": "TypeError"}),
     "all", "a handle or integer class made from None is NULL/0, as None stands for NULL in every handle argument"),
    ("*.handle.EGLint.new(neg)", (None, {"exc": "OverflowError"}),
     "all", "EGLint is a signed C int, so -1 fits (13.0.3 range-checks it as unsigned)"),
    (r"re:\.handle\..*\.(eq_same|ne_same|hash|index)$", None,
     "all", "integer-typedef and function-pointer objects compare and hash by value and have __index__, so "
     "they work wherever an int does (the contract); the reference compares them by identity"),
    (r"re:\.struct\..*\.(new\(\)|sizeof)$", (None, {"exc": "TypeError"}),
     "all", "every struct class can be made on its own and measured with sizeof(), the types of anonymous and "
     "union members too (the reference refuses those without _ptr)"),
    (r"re:\.struct\.anon_(struct|union)\d+\.ptr$", None,
     "all", "T(_ptr=address) views the memory at address for every struct class; for the type of an "
     "anonymous member the reference adds the member's offset in its enclosing struct instead"),
    (r"re:\.field\..*:scalar\.set=(str|list_handle|list_struct)$", ({"exc": "TypeError"}, {"exc": "*"}),
     "all", "a char[] field takes bytes or a list of byte values: a str or a list of other objects raises "
     "TypeError (the reference measures its length first: ValueError, IndexError)"),
    (r"re:\.field\.CUuuid_st\.bytes:scalar\.set=", (None, {"exc": "AttributeError"}),
     "all", "CUuuid.bytes can be set (exactly 16 bytes, as every binary char[] field), so a UUID can be made "
     "for cuGetExportTable; the reference's is read-only"),
    (r"re:^runtime\.field\.cudaDeviceProp\.name:scalar\.set=(bytes|list_int)$", (None, {"exc": "IndexError"}),
     "all", "a C-string char[] field (cudaDeviceProp.name) takes a shorter value, NUL-padded (the reference "
     "demands all 256 bytes, IndexError); binary char[] fields take exactly their size, as there"),
    (r"re:\.fn\..*:(array|struct_ptr|scalar)=(none|handle|int|float)$", ({"exc": "RuntimeError"}, None),
     "all", "ours checks every list argument against the count argument that goes with it (a larger count "
     "would let the C function read past the list); the reference checks only some"),
    (r"re:\.fn\..*:(jitvalues|handle|voidp|voidpp|handle_ref|struct_ptr)=none$", None,
     "all", "None is NULL: ours passes it as given, where the reference substitutes a pointer of its own "
     "(empty option lists, callback trampolines)"),
    ("re:^nvrtc\\.fn\\..*:buf_w=(numpy|ctypes)$", (None, {"exc": "TypeError"}),
     "all", "NVRTC getters write into any writable buffer (numpy, ctypes, bytearray; the contract), checked "
     "against the size query"),
    (r"re:\.fn\..*\.(dst|dstHost|devPtr|buffer):(voidp|buf_w)=bytes$", ({"exc": "TypeError"}, None),
     "all", "memory a call writes (a memcpy's destination, a memset's target, a log buffer) must be a writable "
     "buffer: bytes are immutable (the reference lets the library write into them)"),
    (r"re:^(driver|runtime)\.fn\.cu(da)?LogsDumpToMemory\.buffer:buf_w=(numpy|ctypes)$", (None, {"exc": "TypeError"}),
     "all", "a log buffer is any writable buffer (bytearray, numpy, ctypes) of at least size bytes (the "
     "reference takes bytes and bytearray only)"),
    ("re:^(nvjitlink|nvvm)\\.fn\\..*:buf_w=bytes$", None,
     "all", "bytes is a caller buffer the library fills in place, in every module"),
    ("re:^(nvjitlink|nvvm)\\.fn\\..*:handle(_ref)?=handle$", None,
     "all", "an object with __index__ is an int where nvJitLink and NVVM take their int handle (the "
     "reference refuses binding objects)"),
    ("re:^nvrtc\\.fn\\.nvrtc\\w+\\.\\w+:strlist=(ctypes|swapped)$", None,
     "all", "NVRTC options are a list of bytes or str; other objects raise TypeError"),
    ("re:^nvjitlink\\.fn\\.create\\.options:strlist=(none|str|bytes|ctypes)$", None,
     "all", "nvJitLink options are a list of str or bytes, checked against numOptions before the call"),
    ("re:^nvvm\\.fn\\.(compile|verify)_program\\.options:strlist=(none|str|bytes|ctypes)$", None,
     "all", "NVVM options are a list of str or bytes, checked against num_options before the call (the "
     "reference reads one str or bytes as a list of its characters, which libNVVM refuses)"),
    ("re:\\.fn\\..*\\.success$", (None, {"exc": "ValueError"}),
     "all", "an output the stand-in driver leaves unwritten is 0 (ours zeroes outputs); the reference reads "
     "uninitialised memory and fails to make an enum of it"),
    ("re:\\.fn\\.cu(da)?TexRefSetBorderColor\\.", None,
     "all", "pBorderColor is the four floats (RGBA) the driver reads; the reference takes one float"),
    ("driver.field.CUmemDecompressParams_st.dstActBytes:*", None,
     "all", "a lone cuuint32_t* field (no count) is an address, an int; the reference returns a cuuint32_t"),
    ("re:\\.struct\\.CUmemDecompressParams(_st)?\\.repr$", None,
     "all", "a lone cuuint32_t* field (no count) is an address, an int; the reference shows a cuuint32_t"),
    ("re:\\.struct\\.(CU(da)?[eE]glFrame\\w*|anon_union\\d+)\\.repr$", (None, {"exc": "TypeError"}),
     "all", "the repr of an EGL frame lists its fields (13.0.3 raises TypeError on its union)"),

    (r"re:\.fn\.cu(da)?LogsDumpTo(File|Memory)\.iterator:value_inout=", None,
     "all", "a log iterator in/out argument takes an int, an integer object or None (0), and returns the new "
     "position (the reference takes only its own class)"),
    ("re:\\.field\\..*\\.phGraph_out:handleptr\\.set=list_handle$", (None, {"exc": "AttributeError"}),
     "all", "a T* field takes a list of handles (the reference's conditional body graphs are read-only)"),
    ("re:\\.fn\\.cu(da)?MemRangeGetAttributes\\.dataSizes:array=bytes$", None,
     "all", "the data sizes are a list of ints (one per attribute, each sizing a value ours allocates)"),
    ("re:^driver\\.fn\\.cuPointerSetAttribute\\.value:attr=", None,
     "all", "a pointer attribute value is converted by the attribute's type: None, bytes and buffers where "
     "it is an address (the reference needs its own objects)"),
    ("re:^nvjitlink\\.fn\\.add_data\\.(size:scalar|data:voidp)=(int|float|handle|bytes|ctypes|numpy)$", None,
     "all", "nvJitLink checks its input itself (nvJitLinkError); the reference first compares size with the "
     "buffer's length (ValueError)"),
    ("re:^nvvm\\.fn\\.(lazy_)?add_module_to_program\\.(size:scalar|buffer:voidp)=(int|float|handle|bytes|ctypes|numpy)$",
     None,
     "all", "an NVVM IR buffer may be longer than size (libNVVM reads size bytes of it; a shorter one is a "
     "ValueError, as in the reference, which demands exactly size bytes)"),
    ("re:^nvrtc\\.fn\\.nvrtcSetFlowCallback\\.(callback|prog):handle=", None,
     "all", "a callback is a C function address: an int, a ctypes function or a handle-like object (the "
     "reference takes any buffer); a float is not one"),

    ("re:^kparams\\.struct\\.ctypes-values\\.", ({"outcome": "ok"}, {"exc": "TypeError"}),
     "all", "a (values, types) kernel argument may be typed with a ctypes.Structure class (its instance or a "
     "tuple of its fields, passed by value; scripts/kernel_params_diff.py on the GPU); the reference "
     "takes only scalar types there"),

    # --- how things are shown -----------------------------------------------------------------------
    (r"re:^runtime\.(handle\..*\.repr|struct\..*\.repr)$", None,
     "all", "a runtime handle shows its own class name (<cudaStream_t 0x5>; the reference shows the driver's, "
     "<CUstream 0x5>), and function-pointer types their address in hex like every handle"),
    ("driver.handle.VdpGetProcAddress.repr", None,
     "all", "function-pointer types show their address in hex like every handle (the reference: decimal)"),

    # --- names and values ----------------------------------------------------------------------------
    (r"re:^(driver|runtime|nvjitlink|nvvm)\.name\.", ({"kind": "*"}, None),
     "all", "names the reference leaves out: the deprecated GL buffer functions and the C++-only runtime "
     "functions (cudaLaunchKernel, ...), the vector types (char1, int3, ...), aliases the headers "
     "declare (cudaLaunchConfig_t, VdpFuncId, ...), nvjitlink's and nvvm's C type names and sizeof"),
    ("re:^(driver|runtime)\\.name\\.cudaBindings(Driver|Runtime)Global$", None,
     "all", "internal objects of the reference package, not part of CUDA"),
    (r"re:^(driver|runtime)\.enum\.(CU|cuda)[Aa]tomicOperationCapability\.", None,
     "13.0", "the atomic operation capability enums have the header's members (13.0.3's are empty)"),
    (r"re:^(driver|runtime)\.enum\.(CU|cuda)\w*AttrID\.alias$", None,
     "all", "an enum's typedef aliases (CUstreamAttrID, CUkernelNodeAttrID of CUlaunchAttributeID) are the "
     "same class; the reference makes a copy of the class for each"),
    ("driver.const.CUDA_EGL_INFINITE_TIMEOUT", None,
     "12.9 13.0", "the header defines it as 0xFFFFFFFF (an unsigned value); the reference reads it as -1"),

    # --- NVIDIA's 12.9.x and 13.5.0 (a later generation of NVIDIA's generator than 13.0.3) --------------
    (r"re:(\.fn\..*:(enum|value_inout)=(bytes|ctypes|str)|\.field\..*:enum\.set=(bytes|str))$",
     ({"exc": "TypeError"}, {"exc": "ValueError"}),
     "12.9 13.5", "an enum argument or field given something that is not an integer raises TypeError, the "
     "API contract's error for a wrong type; NVIDIA's 12.9.10 and 13.5.0 look the object up among the "
     "enum's values and raise ValueError"),
    (r"re:(\.fn\..*:voidp=float|\.field\..*:(voidp|ptrarray|structptr)\.set=float)$", ({"exc": "TypeError"}, None),
     "12.9 13.5", "a float is never an address: void* arguments and address fields raise TypeError, as in "
     "13.0.3 (NVIDIA's 12.9.10 and 13.5.0 truncate it to an int)"),
    (r"re:\.field\..*:(voidp|ptrarray)\.set=(big|neg)$", ({"exc": "OverflowError"}, {"exc": "TypeError"}),
     "12.9 13.5", "an address field given an integer out of its range raises OverflowError, as every integer "
     "argument and field does (NVIDIA's 12.9.10 and 13.5.0: TypeError)"),
    (r"re:^(driver|runtime)\.(struct\.(CU|cuda)([Ii]pc\w+Handle|[Mm]emPoolPtrExportData|[Mm]emFabricHandle)\w*\.(ptr|repr)|"
     r"field\.(CU|cuda)([Ii]pc\w+Handle|[Mm]emPoolPtrExportData|[Mm]emFabricHandle)\w*\.reserved:)", None,
     "12.9 13.5", "the bytes of an IPC handle or an exported pool pointer stay readable and writable as "
     "`reserved` (codegen/overrides.py SHOWN_FIELDS): a program sends them to another process, and "
     "numba-cuda's IPC reads and writes handle.reserved; NVIDIA's 12.9.10 and 13.4 onwards hide them, which "
     "broke clients that do (LMCache, Triton's client)"),
    (r"re:^(nvjitlink|nvvm)\.fn\..*:buf_w=none$", ({"exc": "TypeError"}, None),
     "12.9 13.5", "None is not a buffer for the library to fill: TypeError before the call (NVIDIA's 12.9.10 "
     "and 13.5.0 pass NULL and raise the library's error)"),
    ("driver.enum.CUCoredumpGenerationFlags.member.CU_COREDUMP_LOG_ONLY", None,
     "13.5", "the header gives it as 0x80000000, an unsigned value (2147483648); NVIDIA's 13.5.0 reads it as "
     "a signed int"),
    ("driver.const.RESOURCE_ABI_EXTERNAL_BYTES", None,
     "12.9", "the 12.9 header (as 13.0's) defines it as 48; NVIDIA's 12.9.10 has 42"),
    ("re:^nvrtc\\.name\\.nvrtcGetNVVM(Size)?$", ({"kind": "function"}, None),
     "12.9", "NVRTC 12.9 declares nvrtcGetNVVM and nvrtcGetNVVMSize; NVIDIA's 12.9.x binds CUDA 13's NVRTC "
     "API, which dropped them"),
    ("re:^nvjitlink\\.fn\\.get_linked_ltoir(_size)?\\.", (None, {"exc": "FunctionNotFoundError"}),
     "12.9", "the 12.9 nvJitLink library has no LTO-IR getters, so both packages raise; ours checks its "
     "arguments before it looks the entry point up"),

    # --- the struct-style modules: cuFile, NVML, nvFatbin, cuDLA (docs/library-modules.md) ----------------
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.(fn|record)\.", ({"exc": "*"}, {"exc": "*"}),
     "all", "a bad argument or field value raises the API contract's exception (TypeError for a wrong type, "
     "OverflowError for an integer out of range, ValueError for a handle in the first page, a negative size "
     "or a buffer of the wrong size) before the library is called; NVIDIA's package raises numpy's or "
     "Cython's error for the same value, or the library's, or decodes garbage (UnicodeDecodeError)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.fn\..*:handle=int$", ({"exc": "ValueError"}, None),
     "all", "a handle in the first page of memory (1 here) is refused before the library dereferences it "
     "(ValueError, as nvJitLink's and NVVM's handles); NVIDIA's package passes it on"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.record\..*\.set=(int|float|neg|big|list_int|str|object|none)$", ({"exc": "*"}, None),
     "all", "a field refuses a value it cannot hold exactly (a float in an integer field, an int for a "
     "nested struct or array, a negative number in an unsigned or address field, a list of the wrong "
     "length), as the driver's struct fields do; NVIDIA's classes assign through numpy, which truncates, "
     "broadcasts or wraps it"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.fn\..*:(strlist|cstr|field|struct_ptr|records_io)=(int|bytes|str|ctypes|float|numpy)$", ({"exc": "*"}, None),
     "all", "a list of options is a list of str or bytes, a text a str or bytes, a struct argument an object "
     "of its class or an int address: other objects raise TypeError (NVIDIA's package reads some of them "
     "as an address, or as a sequence, or a field-values array as raw bytes)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.fn\.", (None, {"exc": "*"}),
     "all", "ours takes what NVIDIA's package refuses here: None as NULL (or 0 for an integer typedef), bytes "
     "for text, a buffer or struct object where an address is wanted, an array or list where NVIDIA's wants "
     "an address; and it zeroes an output buffer before the call, where NVIDIA's package decodes what the "
     "library left there (the stand-in writes nothing: uninitialised memory, UnicodeDecodeError)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.record\.", (None, {"exc": "*"}),
     "all", "a struct class also holds an array of structs (T(n), from_data of several items, len()), the "
     "module has sizeof() for its classes, and an address field takes None as NULL: NVIDIA's classes hold "
     "one struct, and its modules have no sizeof()"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.record\..*\.(get|set=\w+)$", ({"get": "*"}, {"get": "*"}),
     "all", "a new struct object is zeroed and each field reads as the class or type of its C field: a nested "
     "struct or union as a view of its class, an array as a numpy array of the field's shape (one struct: "
     "no leading axis), a counted array as that many items (uint8 for bytes of data, also when empty), text "
     "as str, a pointer to numbers as a numpy array; NVIDIA's classes read some nested structs and unions as "
     "numpy recarrays, arrays with a leading axis of 1, some text as int8 arrays, an empty counted array as "
     "float64, pointers to numbers as Cython memoryviews or array.array (13.0.3: and a new object's "
     "uninitialised memory)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.record\..*\.(new\(.*\)|from_data|eq)$", None,
     "all", "a struct object holds one struct or an array of them (len() says how many), and == compares "
     "their bytes; NVIDIA's objects have no length, and 13.0.3's compare by identity"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.fn\..*\.(base|\w+:\w+=\w+)$", ({"ret": "*"}, {"ret": "*"}),
     "all", "an array of numbers comes back as a numpy array (NVIDIA's package: a Cython memoryview or an "
     "array.array); an NVML versioned query returns the struct version the header declares for it (where "
     "NVIDIA's fills a newer or older one); an array argument the call fills comes back as well "
     "(device_clear_field_values); cuFile's read, write and use_count return their count (13.0.3: None); "
     "event_set_get_context_data_v1, system_event_set_wait and cudla's module_get_attributes return the "
     "struct the call filled (NVIDIA's: bytes, the event data, an address)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.name\.", ({"kind": "*"}, None),
     "all", "every struct and function the pinned header declares, and sizeof(): NVIDIA's package leaves "
     "some out"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.enum\..*\.(member\.\w+|members)$", ({"value": "*"}, None),
     "12.9 13.5", "the pinned header's members that NVIDIA's package lacks, and the second names its C names give "
     "(THROTTLE_REASON_* beside EVENT_REASON_*)"),
    (r"re:^(cufile|nvml|nvfatbin|cudla)\.enum\..*\.members$", ({"count": "*"}, {"count": "*"}),
     "12.9 13.5", "an enum has the pinned header's members (and their second names): some are newer than NVIDIA's "
     "package of the release"),
    (r"re:^nvml\.(enum\.(ComputeInstanceProfile|GpuInstanceProfile|DeviceVgpuCapability)\.member\.(\w*_)?(PROFILE_)?COUNT|const\.NVLINK_MAX_LINKS)$",
     ({"value": "*"}, {"value": "*"}),
     "12.9 13.5", "the count is the pinned header's (PROFILE_COUNT 9 and 18, DEVICE_VGPU_CAP_COUNT 13, "
     "NVML_NVLINK_MAX_LINKS 36); NVIDIA's package has an older header's value"),
    (r"re:^nvml\.record\.(NvlinkFirmwareInfo|VgpuCreatablePlacementInfo_v1)\.(fields|num_valid_entries\.\w+|placement_size\.\w+)", None,
     "12.9 13.5", "VgpuCreatablePlacementInfo_v1.placement_size (the slots a vGPU type occupies) is a field "
     "as in VgpuPlacementList_v2; NvlinkFirmwareInfo's num_valid_entries counts firmware_version, which "
     "reads as that many items (as NVIDIA's 13.5.0 has it; 12.9.10 shows the count and reads all 100)"),
]

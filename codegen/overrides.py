"""The one table of exceptions to the generator's rules.  Every entry says why it exists.

Parameter roles are normally inferred (model.py: `classify_params`) from the C type and the
header's doxygen text.  The entries below correct the cases where the inference is wrong or where
the C signature alone cannot say what a Python caller should pass.
"""

# Python parameter names that differ from the C names.  Python keywords and builtins that a
# caller would shadow get a safe spelling, the same one for every function.
RENAME = {
    "type": "typename",   # shadows the builtin
    "from": "from_",      # keyword
    "input": "input_",    # shadows the builtin
    "bytes": "numbytes",  # shadows the builtin
    "len": "length",      # shadows the builtin
    "format": "pformat",  # shadows the builtin
}

# (function, C parameter) -> role.  Roles: see model.Param.
PARAM_ROLE = {
    # non-const struct pointers that the function only reads
    ("cuMemGetMemPool", "location"): ("in", "the location is read, not written"),
    ("cuMemGetDefaultMemPool", "location"): ("in", "the location is read, not written"),
    ("cuMemSetMemPool", "location"): ("in", "the location is read, not written"),
    ("cuMemPoolGetAccess", "location"): ("in", "the location is read, not written"),
    ("cuMemPoolImportPointer", "shareData"): ("in", "the export data is read, not written"),
    ("cuMemBatchDecompressAsync", "paramsArray"): ("in", "an array of requests the driver reads"),
    ("cuMemcpyBatchAsync", "attrs"): ("in", "an array of attributes the driver reads"),
    ("cuStreamBatchMemOp", "paramArray"): ("in", "an array of operations the driver reads"),
    ("cuGraphicsMapResources", "resources"): ("in", "an array of resources the driver reads"),
    ("cuGraphicsUnmapResources", "resources"): ("in", "an array of resources the driver reads"),
    ("cuLinkCreate", "options"): ("in", "JIT options are inputs"),
    ("cuLinkAddData", "options"): ("in", "JIT options are inputs"),
    ("cuLinkAddFile", "options"): ("in", "JIT options are inputs"),
    ("cuDevSmResourceSplitByCount", "nbGroups"): ("inout", "in: groups wanted; out: groups made"),
    ("cuDevSmResourceSplitByCount", "result"): ("out", "an array sized by nbGroups"),
    # CUDA 13.1 renamed `remaining` to `remainder`, which the header's text no longer marks as written
    ("cuDevSmResourceSplitByCount", "remainder"): ("out", "the resources left over, written"),
    ("cuDevSmResourceSplit", "remainder"): ("out", "the resources left over, written"),
    ("cudaDevSmResourceSplit", "remainder"): ("out", "the resources left over, written"),
    ("cudaDevSmResourceSplitByCount", "nbGroups"): ("inout", "in: groups wanted; out: groups made"),
    ("cudaDevSmResourceSplitByCount", "result"): ("out", "an array sized by nbGroups"),
    ("cudaDevSmResourceSplitByCount", "remaining"): ("out", "the resources left over, written"),
    # NVRTC 13.5's bundled-header calls: the message text is written, like a status string
    ("nvrtcGetBundledHeadersInfo", "errorLog"): ("out", "the error text, written"),
    ("nvrtcInstallBundledHeaders", "errorLog"): ("out", "the error text, written"),
    ("nvrtcRemoveBundledHeaders", "errorLog"): ("out", "the error text, written"),
    ("cuCoredumpSetAttribute", "size"): ("hidden", "the size follows from the attribute's type"),
    ("cuCoredumpSetAttributeGlobal", "size"): ("hidden", "the size follows from the attribute's type"),
    ("cuCoredumpGetAttribute", "size"): ("hidden", "the size follows from the attribute's type"),
    ("cuCoredumpGetAttributeGlobal", "size"): ("hidden", "the size follows from the attribute's type"),
    ("cuThreadExchangeStreamCaptureMode", "mode"): ("inout", "in: the new mode; out: the old one"),
    ("cuTexRefSetBorderColor", "pBorderColor"): ("in", "an array of four floats, read"),
    ("cuLogsDumpToFile", "iterator"): ("inout", "an auto-advancing iterator"),
    ("cuLogsDumpToMemory", "iterator"): ("inout", "an auto-advancing iterator"),
    ("cuLogsDumpToMemory", "size"): ("inout", "in: buffer size; out: bytes written"),
    ("cuLogsDumpToMemory", "buffer"): ("in", "a caller buffer the driver fills (CALLER_BUFFERS)"),
    ("cuMemMapArrayAsync", "mapInfoList"): ("in", "an array of mappings the driver reads"),
    ("cuTensorMapReplaceAddress", "tensorMap"): ("in", "the tensor map is updated in place"),
    ("cuTensorMapEncodeTiled", "tensorMap"): ("out", "the encoded tensor map is returned"),
    ("cuTensorMapEncodeIm2col", "tensorMap"): ("out", "the encoded tensor map is returned"),
    ("cuTensorMapEncodeIm2colWide", "tensorMap"): ("out", "the encoded tensor map is returned"),
    ("cuGraphExecUpdate", "resultInfo"): ("out", "the update result is returned"),
    ("cuDevSmResourceSplitByCount", "remaining"): ("out", "the remaining resource is returned"),
    ("cuStreamUpdateCaptureDependencies", "dependencies"): ("in", "an array of nodes, read"),
    ("cuDeviceGetNvSciSyncAttributes", "nvSciSyncAttrList"): ("in", "a caller-allocated list"),
    ("cuStreamGetCaptureInfo", "dependencies_out"): ("out", "driver-owned array, copied to a list"),
    ("cuStreamGetCaptureInfo", "edgeData_out"): ("out", "driver-owned array, copied to a list"),
    ("cuGetExportTable", "ppExportTable"): ("out", "the table address is returned as an int"),
    ("cuDeviceGetLuid", "luid"): ("out", "8 bytes returned"),
    ("nvrtcGetLoweredName", "lowered_name"): ("out", "NVRTC points it at the lowered name"),
    ("nvrtcDestroyProgram", "prog"): ("in", "takes the program; the C API clears the caller's copy"),
    # --- runtime twins of the driver entries above
    ("cudaMemPoolGetAccess", "location"): ("in", "the location is read, not written"),
    ("cudaMemGetDefaultMemPool", "location"): ("in", "the location is read, not written"),
    ("cudaMemGetMemPool", "location"): ("in", "the location is read, not written"),
    ("cudaMemPoolImportPointer", "exportData"): ("in", "the export data is read, not written"),
    ("cudaMalloc3D", "pitchedDevPtr"): ("out", "the pitched allocation is returned"),
    ("cudaMemPoolExportPointer", "exportData"): ("out", "the export data is returned"),
    ("cudaGraphExecUpdate", "resultInfo"): ("out", "the update result is returned"),
    ("cudaGraphicsMapResources", "resources"): ("in", "an array of resources the runtime reads"),
    ("cudaGraphicsUnmapResources", "resources"): ("in", "an array of resources the runtime reads"),
    ("cudaThreadExchangeStreamCaptureMode", "mode"): ("inout", "in: the new mode; out: the old one"),
    ("cudaLogsDumpToFile", "iterator"): ("inout", "an auto-advancing iterator"),
    ("cudaLogsDumpToMemory", "iterator"): ("inout", "an auto-advancing iterator"),
    ("cudaLogsDumpToMemory", "size"): ("inout", "in: buffer size; out: bytes written"),
    ("cudaLogsDumpToMemory", "buffer"): ("in", "a caller buffer the runtime fills (CALLER_BUFFERS)"),
    ("cudaDeviceGetNvSciSyncAttributes", "nvSciSyncAttrList"): ("in", "a caller-allocated list"),
    ("cudaStreamGetCaptureInfo", "dependencies_out"): ("out", "runtime-owned array, copied to a list"),
    ("cudaStreamGetCaptureInfo", "edgeData_out"): ("out", "runtime-owned array, copied to a list"),
    ("cudaStreamUpdateCaptureDependencies", "dependencies"): ("in", "an array of nodes, read"),
    ("cudaMemPoolExportToShareableHandle", "shareableHandle"): ("out", "the shareable handle is returned, typed by handleType"),
    ("cudaGetExportTable", "ppExportTable"): ("out", "the table address is returned as an int"),
    # nvJitLink: caller buffers the library fills (sized by the matching *Size call)
    ("nvJitLinkGetLinkedCubin", "cubin"): ("in", "a caller buffer, filled"),
    ("nvJitLinkDestroy", "handle"): ("in", "takes the handle; the C API clears the caller's copy"),
    ("nvvmDestroyProgram", "prog"): ("in", "takes the program; the C API clears the caller's copy"),
    ("nvFatbinDestroy", "handle_indirect"): ("in", "takes the handle; the C API clears the caller's copy"),
    # cuFile: memory the library reads, or writes later (an asynchronous call completes when the
    # stream reaches it): the caller's, by address or struct object, as the reference takes them
    ("cuFileReadAsync", "size_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileReadAsync", "file_offset_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileReadAsync", "bufPtr_offset_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileReadAsync", "bytes_read_p"): ("addr", "written when the stream reaches the call: the caller's memory"),
    ("cuFileWriteAsync", "size_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileWriteAsync", "file_offset_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileWriteAsync", "bufPtr_offset_p"): ("addr", "read when the stream reaches the call: the caller's memory"),
    ("cuFileWriteAsync", "bytes_written_p"): ("addr", "written when the stream reaches the call: the caller's memory"),
    ("cuFileBatchIOGetStatus", "nr"): ("addr", "in/out count in the caller's memory (the reference takes its address)"),
    ("cuFileBatchIOGetStatus", "iocbp"): ("in", "the caller's IOEvents, filled"),
    ("cuFileBatchIOGetStatus", "timeout"): ("addr", "a struct timespec the caller gives by address (or 0)"),
    ("cuFileDriverGetProperties", "props"): ("in", "the caller's DrvProps, filled (the reference takes it)"),
    ("cuFileGetStatsL1", "stats"): ("in", "the caller's StatsLevel1, filled (the reference takes it)"),
    ("cuFileGetStatsL2", "stats"): ("in", "the caller's StatsLevel2, filled (the reference takes it)"),
    ("cuFileGetStatsL3", "stats"): ("in", "the caller's StatsLevel3, filled (the reference takes it)"),
    # NVML: struct inputs the doc's "Get" wording would make outputs, and a value passed by reference
    ("nvmlGetVgpuCompatibility", "vgpuMetadata"): ("in", "the vGPU's metadata, read"),
    ("nvmlGetVgpuCompatibility", "pgpuMetadata"): ("in", "the physical GPU's metadata, read"),
    ("nvmlDeviceLockNvlinkRemapTable_v1", "remapTableLockInfo"): ("in", "the lock request, read"),
    ("nvmlDeviceSetPowerMizerMode_v1", "powerMizerMode"): ("in", "the mode to set, read"),
    ("nvmlDeviceSetTemperatureThreshold", "temp"): ("ref", "the threshold to set, passed by reference"),
    # cuDLA: addresses of memory registered with the DLA (the reference takes them as ints)
    ("cudlaMemRegister", "ptr"): ("addr", "the address of the CUDA memory to register"),
    ("cudlaMemRegister", "devPtr"): ("out", "the DLA address of the registered memory is returned"),
    ("cudlaMemUnregister", "devPtr"): ("addr", "the DLA address to unregister"),
    ("cudlaImportExternalMemory", "devPtr"): ("out", "the DLA address of the imported memory is returned"),
    ("cudlaImportExternalSemaphore", "devPtr"): ("out", "the DLA address of the imported semaphore is returned"),
    ("cuFileGetParameterPosixPoolSlabArray", "size_values"): ("addr", "the caller's array of len items, filled"),
    ("cuFileGetParameterPosixPoolSlabArray", "count_values"): ("addr", "the caller's array of len items, filled"),
    ("cuFileGetParameterGpuBounceBufferSlabArray", "size_values"): ("addr", "the caller's array of len items, filled"),
    ("cuFileGetParameterGpuBounceBufferSlabArray", "count_values"): ("addr", "the caller's array of len items, filled"),
    # graphics interop: EGL stream connections and streams are read and updated in place: the
    # call gets the address of the handle object's own value (as the reference package passes
    # it), so what it writes there is what the object then holds; the VDPAU entry point getter
    # is passed in, not returned
    ("cuEGLStreamConsumerDisconnect", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamConsumerAcquireFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamConsumerAcquireFrame", "pCudaResource"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamConsumerAcquireFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamConsumerReleaseFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamConsumerReleaseFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamProducerDisconnect", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamProducerPresentFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamProducerPresentFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamProducerReturnFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuEGLStreamProducerReturnFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerDisconnect", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerAcquireFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerAcquireFrame", "pCudaResource"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerAcquireFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerReleaseFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamConsumerReleaseFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamProducerDisconnect", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamProducerPresentFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamProducerPresentFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamProducerReturnFrame", "conn"): ("in", "a connection/stream the call reads and updates in place"),
    ("cudaEGLStreamProducerReturnFrame", "pStream"): ("in", "a connection/stream the call reads and updates in place"),
    ("cuVDPAUGetDevice", "vdpGetProcAddress"): ("in", "the VDPAU entry point getter, passed in"),
    ("cuVDPAUCtxCreate", "vdpGetProcAddress"): ("in", "the VDPAU entry point getter, passed in"),
    ("cudaVDPAUGetDevice", "vdpGetProcAddress"): ("in", "the VDPAU entry point getter, passed in"),
    ("cudaVDPAUSetVDPAUDevice", "vdpGetProcAddress"): ("in", "the VDPAU entry point getter, passed in"),
    ("cuGetProcAddress", "pfn"): ("out", "the function pointer is returned as an int"),
    ("cuKernelGetParamInfo", "paramOffset"): ("out", "returned offset"),
    ("cuFuncGetParamInfo", "paramOffset"): ("out", "returned offset"),
    ("cuTexRefSetAddress", "ByteOffset"): ("out", "returned offset"),
    ("cuMemGetHandleForAddressRange", "handle"): ("out", "the OS handle is returned as an int"),
    ("cuMemExportToShareableHandle", "shareableHandle"): ("out", "the shareable handle is returned, typed by handleType"),
    ("cuMemPoolExportToShareableHandle", "handle_out"): ("out", "the shareable handle is returned, typed by handleType"),
    # 13.5: as NVIDIA's package has them
    ("cuLogicalEndpointExport", "handle"): ("out", "the exported handle is returned (PARAM_TYPE: its type)"),
    ("cuMemGetLocationInfo", "location_out"): ("in", "a caller-made location the driver writes, as "
                                               "cudaMemGetLocationInfo takes it"),
    ("cudaMemGetLocationInfo", "location_out"): ("in", "a caller-made location the runtime writes"),
}

# void* parameters whose pointee has one type, which the wrapper makes (an output) or takes:
# (function, C parameter) -> (type, reason).
PARAM_TYPE = {
    ("cuLogicalEndpointExport", "handle"): ("CUlogicalEndpointFabricHandle",
                                            "the one handle type there is (CU_LOGICAL_ENDPOINT_IPC_HANDLE_TYPE_FABRIC); "
                                            "NVIDIA's package returns one whatever the type asked for"),
}

# Functions whose output array has a count given by another parameter (C name of count), where
# the doxygen text does not say so in a way model._OUT_LIST_DOC reads ("Output array of ...",
# "Buffer where ... returned").  An entry of a driver function holds for its runtime twin too
# (cudaX of cuX) when the parameter and its count have the same names there.
ARRAY_COUNT = {
    ("nvmlDeviceGetTopologyNearestGpus", "deviceArray"): "count",
    ("nvmlSystemGetTopologyGpuSet", "deviceArray"): "count",
    ("nvmlDeviceGetSupportedPerformanceStates", "pstates"): 16,     # NVML_MAX_GPU_PERF_PSTATES
    ("cuModuleEnumerateFunctions", "functions"): "numFunctions",
    ("cuLibraryEnumerateKernels", "kernels"): "numKernels",
    ("cuGraphGetNodes", "nodes"): "numNodes",
    ("cuGraphGetRootNodes", "rootNodes"): "numRootNodes",
    ("cuGraphGetEdges", "from"): "numEdges",
    ("cuGraphGetEdges", "to"): "numEdges",
    ("cuGraphGetEdges", "edgeData"): "numEdges",
    ("cuGraphNodeGetDependencies", "dependencies"): "numDependencies",
    ("cuGraphNodeGetDependencies", "edgeData"): "numDependencies",
    ("cuGraphNodeGetDependentNodes", "dependentNodes"): "numDependentNodes",
    ("cuGraphNodeGetDependentNodes", "edgeData"): "numDependentNodes",
    ("cuDevSmResourceSplitByCount", "result"): "nbGroups",
    ("cuDeviceGetLuid", "luid"): 8,
    ("cuDeviceGetCliqueInfo", "cliqueInfo"): "count",
    ("cuDevSmResourceSplit", "result"): "nbGroups",
    ("cudaDevSmResourceSplit", "result"): "nbGroups",
    ("cuGLGetDevices", "pCudaDevices"): "cudaDeviceCount",
    ("cudaGLGetDevices", "pCudaDevices"): "cudaDeviceCount",
    ("cudaGraphGetNodes", "nodes"): "numNodes",
    ("cudaGraphGetRootNodes", "pRootNodes"): "pNumRootNodes",
    ("cudaGraphGetEdges", "from"): "numEdges",
    ("cudaGraphGetEdges", "to"): "numEdges",
    ("cudaGraphGetEdges", "edgeData"): "numEdges",
    ("cudaGraphNodeGetDependencies", "pDependencies"): "pNumDependencies",
    ("cudaGraphNodeGetDependencies", "edgeData"): "pNumDependencies",
    ("cudaGraphNodeGetDependentNodes", "pDependentNodes"): "pNumDependentNodes",
    ("cudaGraphNodeGetDependentNodes", "edgeData"): "pNumDependentNodes",
    ("cudaStreamGetCaptureInfo", "dependencies_out"): "numDependencies_out",
    ("cudaStreamGetCaptureInfo", "edgeData_out"): "numDependencies_out",
    ("cuDeviceGetHostAtomicCapabilities", "capabilities"): "count",
    ("cuDeviceGetP2PAtomicCapabilities", "capabilities"): "count",
    # the length comes from another call
    ("nvrtcGetSupportedArchs", "supportedArchs"): "call:nvrtcGetNumSupportedArchs",
    ("cuStreamGetCaptureInfo", "dependencies_out"): "numDependencies_out",
    ("cuStreamGetCaptureInfo", "edgeData_out"): "numDependencies_out",
}

# Output arrays whose length the library neither takes nor reports before the call (it writes as
# many items as exist, up to what the object can hold, and says how many in `count`; a NULL array
# does not ask for the count): (function, array parameter) -> (its count parameter, the call that
# gives an upper bound, in the wrapper's C locals, `{n}` standing for its count pointer).  NVML
# documents the possible placements of the profile as that bound (an array sized by a guess
# would be overrun on a GPU with more instances than the guess).
ARRAY_CAPACITY = {
    ("nvmlDeviceGetGpuInstances", "gpuInstances"):
        ("count", "nvmlDeviceGetGpuInstancePossiblePlacements_v2(<cynvml.nvmlDevice_t>c_device, c_profileId, NULL, {n})"),
    ("nvmlGpuInstanceGetComputeInstances", "computeInstances"):
        ("count", "nvmlGpuInstanceGetComputeInstancePossiblePlacements(<cynvml.nvmlGpuInstance_t>c_gpuInstance, c_profileId, NULL, {n})"),
}

# Inputs the library goes on using after the call that takes them has returned, until a later call
# releases the handle that call made: function -> (its handle output, the releasing function, the
# inputs, reason).  The converted inputs (and the Python objects they point to) are kept with the
# handle's value until the releasing call succeeds on it (cuda_bindings/_base.pyx,
# _keep_until_release).  The generator refuses a function whose doxygen text states such a rule
# ("must remain valid for the life of") without an entry here (__main__.unkept_lifetimes).
KEEP_UNTIL_RELEASE = {
    "cuLinkCreate": ("stateOut", "cuLinkDestroy", ("options", "optionValues"),
                     "\"optionValues must remain valid for the life of the CUlinkState if output options "
                     "are used\": the driver writes CU_JIT_WALL_TIME and the log sizes into it, and the "
                     "log messages into the buffers it points to, until cuLinkDestroy"),
}

# Pointer struct fields whose item count is a sibling field the naming rules (numX, XCount,
# count) do not find: field name -> count field name.
POINTER_COUNT = {
    "extSemArray": "numExtSems",   # the semaphores of an external-semaphore node
    "paramsArray": "numExtSems",   # ... and their parameters, one per semaphore
    "phGraph_out": "size",         # the body graphs the driver makes for a conditional node
    # NVML's lists the library fills: the reference reads each as that many structs
    "procArray": "numProcArrayEntries",             # nvmlProcessDetailList_v1_t
    "procUtilArray": "processSamplesCount",         # nvmlProcessesUtilizationInfo_v1_t
    "vgpuUtilArray": "vgpuInstanceCount",           # nvmlVgpuInstancesUtilizationInfo_v1_t
    "vgpuProcUtilArray": "vgpuProcessCount",        # nvmlVgpuProcessesUtilizationInfo_v1_t
    "entries": "entryCount",                        # nvmlEccSramUniqueUncorrectedErrorCounts_v1_t
    "telemetrySamples": "telemetryCount",           # nvmlNvlinkTelemetrySamples_v1_t
    # cuDLA's fences of a task's wait and signal events
    "preFences": "numEvents",                       # cudlaWaitEvents
    "eofFences": "numEvents",                       # cudlaSignalEvents
}

# Input lists whose count the naming rules (model._pair_list_counts) would pair wrongly, or do
# not find: (function, list parameter) -> its count parameter.
LIST_COUNT = {
    ("nvFatbinCreate", "options"): "optionsCount",
    ("cuMemRangeGetAttributes", "dataSizes"): "numAttributes",   # `count` is the range's size in bytes
    ("cudaMemRangeGetAttributes", "dataSizes"): "numAttributes",
}

# Public function names of the struct-style modules that the naming rule (names.function_name) does
# not give: C name -> the reference package's name.
PUBLIC_FUNCTION = {
    # the reference keeps NvLink as two words in this one name (every other NVML name has `nvlink`)
    "nvmlDeviceGetNvLinkTelemetrySamples_v1": "device_get_nv_link_telemetry_samples_v1",
    "cufileop_status_error": "op_status_error",     # the header's inline status-text helper
}

# Class names of the struct-style modules that the naming rule (names.class_name) does not give:
# C type name -> the reference's name.
PUBLIC_CLASS = {
    # the struct's functions take it as nvmlProcessInfo_t: the reference names it so
    "nvmlProcessInfo_v2_t": "ProcessInfo",
}

# The reference's number of an anonymous nested struct or union (its class `_py_anon_pod<N>`)
# where it is not the type's place among the header's anonymous types: library -> {host C type
# and member path: N}.  The others are numbered in the order they appear, skipping these.
ANONYMOUS_NUMBER = {
    "nvml": {"nvmlPerfMetricControllerSample_t|data": 8},
}

# Enums of the struct-style modules whose members also answer to their C name without the
# library prefix (NVML_CLOCK_GRAPHICS: ClockType.GRAPHICS, also ClockType.CLOCK_GRAPHICS), as in
# the reference package, where clients use them (cuda.core's system module reads
# ClockType.CLOCK_GRAPHICS).  The reference has them for these enums only.
ENUM_C_ALIASES = {
    "nvmlBrandType_t", "nvmlBridgeChipType_t", "nvmlClockType_t", "nvmlComputeMode_t", "nvmlCoolerControl_t",
    "nvmlDetachGpuState_t", "nvmlDeviceAddressingModeType_t", "nvmlDeviceGpuRecoveryAction_t",
    "nvmlDeviceVgpuCapability_t", "nvmlDriverModel_t", "nvmlEnableState_t", "nvmlEncoderType_t", "nvmlFanState_t",
    "nvmlGpmMetricId_t", "nvmlGpuOperationMode_t", "nvmlGpuP2PCapsIndex_t", "nvmlGpuP2PStatus_t",
    "nvmlGpuTopologyLevel_t", "nvmlGpuUtilizationDomainId_t", "nvmlInforomObject_t", "nvmlIntNvLinkDeviceType_t",
    "nvmlNvLinkCapability_t", "nvmlNvLinkErrorCounter_t", "nvmlNvLinkUtilizationCountPktTypes_t",
    "nvmlNvLinkUtilizationCountUnits_t", "nvmlPcieLinkState_t", "nvmlPcieUtilCounter_t", "nvmlPerfPolicyType_t",
    "nvmlPowerProfileType_t", "nvmlTemperatureSensors_t", "nvmlTemperatureThresholds_t", "nvmlVgpuCapability_t",
    "nvmlVgpuDriverCapability_t", "nvmlVgpuGuestInfoState_t", "nvmlVgpuPgpuCompatibilityLimitCode_t",
    "nvmlVgpuVmIdType_t",
    "cudlaFenceType", "cudlaModuleLoadFlags", "cudlaStatus", "cudlaSubmissionFlags", "cudlaScratchMemoryConfig",
}

# Further member aliases the reference has: C enum -> {alias: C member}.
ENUM_ALIASES = {
    "nvmlCoolerTarget_t": {"THERMAL_" + m: "NVML_THERMAL_COOLER_TARGET_" + m
                           for m in ("NONE", "GPU", "MEMORY", "POWER_SUPPLY", "GPU_RELATED")},
    "nvmlEccCounterType_t": {"COUNT": "NVML_ECC_COUNTER_TYPE_COUNT"},
    "nvmlEventDataType_t": {"EVENT": "NVML_EVENT_DATA_TYPE_NVML_EVENT"},
    "nvmlNvlinkVersion_t": {"VERSION_" + m: "NVML_NVLINK_VERSION_" + m
                            for m in ("INVALID", "1_0", "2_0", "2_2", "3_0", "3_1", "4_0", "5_0", "6_0")},
    "cudlaScratchMemoryConfig": {"MAX": "CUDLA_SCRATCH_MEMORY_CONFIG_MAX"},
}

# Enums of the struct-style modules whose members keep more than the naming rule
# (names.member_names) would leave them: C enum -> the prefix taken off.
ENUM_MEMBER_PREFIX = {
    # cuFile 1.15 has only POSIX_POOL_SLAB_SIZE_KB and _COUNT: the reference keeps POSIX_POOL_SLAB_
    "CUFileArrayConfigParameter_t": "CUFILE_PARAM_",
}

# What the struct-style modules' libraries do with a handle that is none (a value in the first
# page of memory, one a destroy call freed), measured on the real libraries by
# scripts/handle_probe.py (docs/reliability.md): "crash" (a segfault) -- ours refuses such a
# handle (ValueError) and remembers the destroyed ones (CONSUMES, handle_ref); "status" -- the
# library reports it, so ours passes it on and raises what the library returns, as NVIDIA's
# package does.  A handle type not named here is "status".  nvJitLink's and NVVM's handles, which
# crash, are checked by the snake_case layer (emit_snake).
HANDLE_CHECKS = {
    "nvmlDevice_t": "crash",            # 252 of the 262 entry points
    "nvmlEventSet_t": "crash",
    "nvmlGpmSample_t": "crash",
    "nvmlUnit_t": "status",             # NVML_ERROR_INVALID_ARGUMENT
    "nvmlGpuInstance_t": "status",      # 12 of 18 (the vGPU calls crash: below)
    "nvmlComputeInstance_t": "status",
    "CUfileHandle_t": "status",
    "CUfileBatchHandle_t": "status",
    "nvFatbinHandle": "crash",          # 6 of 7; nvFatbinAddReloc refused its empty input first
    "cudlaDevHandle": "status",         # no DLA hardware to measure on: passed on, as NVIDIA's does
    "cudlaModule": "status",
}
# Entry points that do otherwise than their handle type: those that answer before they read the
# handle (NOT_SUPPORTED for the NvLink utilization calls and nvmlDeviceSetDriverModel, success for
# nvmlDeviceClearCpuAffinity), and the GPU-instance vGPU calls, which crash.
HANDLE_CHECKS_BY_FUNCTION = {
    **{f: "status" for f in ("nvmlDeviceClearCpuAffinity", "nvmlDeviceSetDriverModel",
                             "nvmlDeviceSetNvLinkUtilizationControl", "nvmlDeviceGetNvLinkUtilizationControl",
                             "nvmlDeviceGetNvLinkUtilizationCounter", "nvmlDeviceFreezeNvLinkUtilizationCounter",
                             "nvmlDeviceResetNvLinkUtilizationCounter")},
    **{f: "crash" for f in ("nvmlGpuInstanceGetCreatableVgpus", "nvmlGpuInstanceGetActiveVgpus",
                            "nvmlGpuInstanceSetVgpuSchedulerState", "nvmlGpuInstanceGetVgpuTypeCreatablePlacements",
                            "nvmlGpuInstanceGetVgpuHeterogeneousMode", "nvmlGpuInstanceSetVgpuHeterogeneousMode")},
}


def handle_check(fn_name, handle_type):
    """"crash" or "status": what the library does with a made-up or destroyed handle of this type
    given to this entry point (HANDLE_CHECKS, HANDLE_CHECKS_BY_FUNCTION)."""
    return HANDLE_CHECKS_BY_FUNCTION.get(fn_name) or HANDLE_CHECKS.get(handle_type, "status")


# Getters whose size query changes the library's state: getter -> (size query, destroy call).
# nvFatbinSize finishes the fatbin, and nvFatbinGet fails (ERROR_INTERNAL) unless it was called:
# the getter may not ask first, as the others do, so it checks the buffer against the size the
# caller asked for last (kept by the handle's value until its destroy call), and passes an
# unchecked call on where none was asked for, as NVIDIA's package does.
STATEFUL_SIZE_QUERY = {"nvFatbinGet": ("nvFatbinSize", "nvFatbinDestroy")}

# Text arguments that NVIDIA's package takes as the int address of a C string (an `intptr_t`
# there, not text): ours takes that address, str and bytes.  An address in the first page of
# memory is refused (ValueError): the library would read it and crash.
CSTR_ADDRESS = {("cuFileSetParameterString", "desc_str")}

# Calls of the struct-style modules that free what a handle argument (passed by value) refers to:
# (function, parameter).  Where the library crashes on a freed handle (HANDLE_CHECKS), a later
# call given that handle raises ValueError instead of handing the library freed memory (as for
# the destroy calls that take the handle by reference).
CONSUMES = {
    ("cuFileHandleDeregister", "fh"),
    ("cuFileBatchIODestroy", "batch_idp"),
    ("cudlaDestroyDevice", "devHandle"),
    ("cudlaModuleUnload", "hModule"),
    ("nvmlEventSetFree", "set"),
    ("nvmlGpuInstanceDestroy", "gpuInstance"),
    ("nvmlComputeInstanceDestroy", "computeInstance"),
}

# char[] fields of the struct-style modules that hold binary data (read as numpy int8 arrays, as
# in the reference package): (struct, field); the others are text (NVML's `uuid` fields are the
# ASCII "GPU-..." strings).
BINARY_RECORD_FIELDS = {("CUfilePerGpuStats", "uuid")}

# Fields of the struct-style modules that are not properties (besides the counts of array fields,
# which the naming rules find): (struct, C field).
HIDDEN_FIELDS = {
    # NVML's reserved arrays, which the reference's classes do not show (their dtypes keep them;
    # nvmlMemory_v2_t's `reserved`, memory the driver keeps, is a value and stays)
    ("nvmlAccountingStats_st", "reserved"),
    ("nvmlVgpuMetadata_st", "reserved"),
    ("nvmlVgpuPgpuMetadata_st", "reserved"),
}

# Pointer-to-number fields of the struct-style modules that the reference reads as numpy arrays
# and sets from sequences of numbers (the others are addresses): (struct, field) -> the field
# counting the items ("" for none).  A count field no property shows takes the array's length.
POINTER_NUMBERS = {
    ("nvmlActiveVgpuInstanceInfo_v1_t", "vgpuInstances"): "vgpuCount",
    ("nvmlVgpuTypeIdInfo_v1_t", "vgpuTypeIds"): "vgpuCount",
    ("nvmlVgpuPlacementList_v1_t", "placementIds"): "count",
    ("nvmlVgpuPlacementList_v2_t", "placementIds"): "count",
    # (NVIDIA's package reads as many as placementSize says, and shows `count`)
    ("nvmlVgpuCreatablePlacementInfo_v1_t", "placementIds"): "placementSize",
    # cuDLA's arrays of tensor addresses (uint64_t *const *): the addresses, as numbers
    ("cudlaTask_t", "inputTensor"): "numInputTensors",
    ("cudlaTask_t", "outputTensor"): "numOutputTensors",
    ("cudlaSignalEvents", "devPtrs"): "numEvents",
}

# The struct classes NVIDIA's package of each release backs with a numpy record array of one struct
# (the others hold one C struct): they read a nested struct as a numpy record array, a char array
# as int8 numbers and a fixed array with a leading axis of one, and set every field as numpy
# assigns it (cuda_bindings/_records.pyx, _numpy_records).  Observed on NVIDIA's 12.9.10, 13.0.3
# and 13.5.0; no rule of the headers says which classes they are.  A release whose twin lacks the
# module (nvml and nvfatbin beside 13.0.3) takes the newest twin's list.
_NVML_NUMPY_RECORDS = (
    "BridgeChipInfo", "ClkMonFaultInfo", "ComputeInstancePlacement", "CoreRailMetrics",
    "EccSramUniqueUncorrectedErrorEntry_v1", "EncoderSessionInfo", "FBCSessionInfo", "FieldValue",
    "GpuInstancePlacement", "GridLicensableFeature", "HwbcEntry", "NvlinkFirmwareVersion",
    "NvlinkTelemetrySample_v1", "ObservedMetrics", "PRMCounter_v1", "PerfMetricControllerSample",
    "PerfMetricsDlppc2xSample", "PerfMetricsPfpp1xSample", "PerfMetricsSample", "PmgrPwrTuple",
    "ProcessDetail_v1", "ProcessInfo", "ProcessUtilizationInfo_v1", "ProcessUtilizationSample",
    "PwrModelMetricsDlppm1x", "PwrModelMetricsDlppm1xDramclkEstimates", "PwrModelMetricsDlppm1xPerf",
    "PwrModelMetricsPfpp1x", "PwrModelMetricsSamplePfpp1x", "PwrModelOperatingPointPfpp1x", "RailMetrics",
    "Sample", "SystemEventData_v1", "UnitFanInfo", "VgpuInstanceUtilizationInfo_v1",
    "VgpuInstanceUtilizationSample", "VgpuProcessUtilizationInfo_v1", "VgpuProcessUtilizationSample",
    "VgpuSchedulerLogEntry", "VgpuSchedulerLogEntry_v2", "_py_anon_pod0", "_py_anon_pod1")
NUMPY_RECORDS = {
    "12.9": {"cufile": ("Descr", "IOEvents", "IOParams"), "nvml": _NVML_NUMPY_RECORDS, "nvfatbin": ()},
    "13.0": {"cufile": ("Descr", "IOEvents", "IOParams", "OpCounter", "PerGpuStats", "StatsLevel1", "StatsLevel2",
                        "StatsLevel3", "_py_anon_pod1", "_py_anon_pod2", "_py_anon_pod3"),
             "nvml": _NVML_NUMPY_RECORDS, "nvfatbin": ()},
    "13.5": {"cufile": ("Descr", "IOEvents", "IOParams", "IOVec", "PerGpuStats"), "nvml": _NVML_NUMPY_RECORDS,
             "nvfatbin": (), "cudla": ()},
}

# Fields that count a sibling array and that the reference still shows as properties (the other
# count fields are not properties: the array reads as that many items): (struct, field).
COUNT_PROPERTIES = {
    ("nvmlGpuFabricInfo_v4_t", "numCliques"),
    ("nvmlNvlinkTelemetrySample_v1_t", "sampleCount"),
    ("nvmlVgpuCreatablePlacementInfo_v1_t", "count"),
}

# Field names of the struct-style modules that the naming rule (names.field_name) does not give:
# (struct, C field) -> the reference's name.
FIELD_NAME = {
    ("nvmlBAR1Memory_t", "bar1Total"): "bar1_total",     # where VgpuTypeBar1Info_v1 has `bar1size`
    ("nvmlBAR1Memory_t", "bar1Free"): "bar1_free",
    ("nvmlBAR1Memory_t", "bar1Used"): "bar1_used",
}

# Fixed-size array fields of the struct-style modules whose count field the naming rules do not
# find: (struct, array field) -> count field.
ARRAY_FIELD_COUNT = {
    # NVML: the reference reads each array as that many items, and shows no count property
    ("nvmlBridgeChipHierarchy_st", "bridgeChipInfo"): "bridgeCount",
    ("nvmlClkMonStatus_status", "clkMonList"): "clkMonListSize",
    ("nvmlConfComputeGpuAttestationReport_st", "attestationReport"): "attestationReportSize",
    ("nvmlConfComputeGpuAttestationReport_st", "cecAttestationReport"): "cecAttestationReportSize",
    ("nvmlConfComputeGpuCertificate_st", "certChain"): "certChainSize",
    ("nvmlConfComputeGpuCertificate_st", "attestationCertChain"): "attestationCertChainSize",
    ("nvmlGridLicensableFeatures_st", "gridLicensableFeatures"): "licensableFeaturesCount",
    ("nvmlNvlinkSupportedBwModes_v1_t", "bwModes"): "totalBwModes",
    ("nvmlNvlinkFirmwareInfo_t", "firmwareVersion"): "numValidEntries",
    ("nvmlNvlinkGetRemapTableInfo_v1_t", "flaRemapTabAddr"): "remapTabSize",
    ("nvmlNvlinkGetRemapTableInfo_v1_t", "gpaRemapTabAddr"): "remapTabSize",
    ("nvmlNvlinkNvlePrivateInfo_v1_t", "data"): "size",
    ("nvmlPwrModelMetricsPfpp1x_t", "estimatedMetrics"): "numVfPoints",
}

# Fixed-size arrays whose count field NVIDIA's package of a release shows as a property, reading
# every item of the array: release -> {(struct, array field)}.
ARRAY_FIELD_UNCOUNTED = {"12.9": {("nvmlNvlinkFirmwareInfo_t", "firmwareVersion")}}

# #define constants a struct-style module exposes, by the reference's names: module (libs.module) ->
# {C name: name}.
PUBLIC_CONSTANTS = {
    "nvml": {"NVML_NVLINK_MAX_LINKS": "NVLINK_MAX_LINKS", "NVML_MAX_GPU_UTILIZATIONS": "MAX_GPU_UTILIZATIONS",
             "NVML_GRID_LICENSE_FEATURE_MAX_COUNT": "GRID_LICENSE_FEATURE_MAX_COUNT"},
    "_v2.driver": {n: n for n in ("CUDA_EGL_INFINITE_TIMEOUT", "CUDA_VERSION", "CU_IPC_HANDLE_SIZE",
                                  "CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM", "CU_TENSOR_MAP_NUM_QWORDS", "MAX_PLANES")},
}


# Enums of the struct-style modules that the header writes as groups of #defines (NVML's `NVML_FI_*`
# field ids are `FieldId`), by the reference's names: library -> {enum: spec}.  A spec is the
# prefix taken off the #define names (a camelCase one, `nvmlClocks...`, gives upper-case words) and,
# where not every #define starting with it belongs, a pattern the names match; or a list of
# (member, #define) pairs.  #defines ending in _SHIFT or _WIDTH (bit-field layouts) are left out.
# Keyed by module (libs.module: `nvml`, `_v2.driver`).
DEFINE_ENUMS = {
    # cuda.bindings._v2's enums of cuda.h's #define groups (CUDA_ARRAY3D_LAYERED -> Array3dFlags.LAYERED)
    "_v2.driver": {
        # CUDA_ARRAY3D_2DARRAY is an older name of LAYERED, no identifier
        "Array3dFlags": ("CUDA_ARRAY3D_", r"CUDA_ARRAY3D_(?!2DARRAY)"),
        "ArraySparsePropertiesFlags": "CU_ARRAY_SPARSE_PROPERTIES_",
        "ComputeTargetBase": [("ACCELERATED", "CU_COMPUTE_ACCELERATED_TARGET_BASE"),
                              ("FAMILY", "CU_COMPUTE_FAMILY_TARGET_BASE")],
        "CooperativeLaunchMultiDeviceFlags": "CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_",
        "ExternalMemoryFlags": "CUDA_EXTERNAL_MEMORY_",
        "ExternalSemaphoreSignalFlags": "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_",
        "ExternalSemaphoreWaitFlags": "CUDA_EXTERNAL_SEMAPHORE_WAIT_",
        "GraphConditionalHandleFlags": "CU_GRAPH_COND_",
        "GraphKernelNodePort": "CU_GRAPH_KERNEL_NODE_PORT_",
        # the integers of CU_LAUNCH_PARAM_END and its kin, which are pointers
        "LaunchParam": [("END", "CU_LAUNCH_PARAM_END_AS_INT"), ("BUFFER_POINTER", "CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT"),
                        ("BUFFER_SIZE", "CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT")],
        "MemCreateUsage": "CU_MEM_CREATE_USAGE_",
        "MemHostAllocFlags": "CU_MEMHOSTALLOC_",
        "MemHostRegisterFlags": "CU_MEMHOSTREGISTER_",
        "MemPoolCreateUsage": "CU_MEM_POOL_CREATE_USAGE_",
        "NvSciSyncAttr": "CUDA_NVSCISYNC_ATTR_",
        "ParamTexRef": [("DEFAULT", "CU_PARAM_TR_DEFAULT")],
        "SpecialDevice": [("CPU", "CU_DEVICE_CPU"), ("INVALID", "CU_DEVICE_INVALID")],
        "SpecialStream": [("LEGACY", "CU_STREAM_LEGACY"), ("PER_THREAD", "CU_STREAM_PER_THREAD")],
        "TexRefArrayFlags": "CU_TRSA_",
        "TexRefFlags": "CU_TRSF_",
    },
    "_v2.nvrtc": {"InstallHeadersFlag": "NVRTC_INSTALL_HEADERS_"},
    "nvml": {
    "AffinityScope": "NVML_AFFINITY_SCOPE_", "BusType": "NVML_BUS_TYPE_",
    "C2CPowerState": "NVML_C2C_POWER_STATE_", "CCAcceptingClientRequests": "NVML_CC_ACCEPTING_CLIENT_REQUESTS_",
    "CCSystemCpuCaps": "NVML_CC_SYSTEM_CPU_CAPS_", "CCSystemDevtoolsMode": "NVML_CC_SYSTEM_DEVTOOLS_MODE_",
    "CCSystemEnvironment": "NVML_CC_SYSTEM_ENVIRONMENT_", "CCSystemGpus": "NVML_CC_SYSTEM_GPUS_",
    "CCSystemMultiGpu": "NVML_CC_SYSTEM_MULTIGPU_", "CCSystemFeature": "NVML_CC_SYSTEM_FEATURE_",
    "ClocksEventReasons": ("nvmlClocks", r"nvmlClocks(Event|Throttle)Reason"),
    "ComputeInstanceEngineProfile": "NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_",
    "ComputeInstanceProfile": ("NVML_COMPUTE_INSTANCE_", r"NVML_COMPUTE_INSTANCE_PROFILE_(?!CAPS)"),
    "ComputeInstanceProfileCaps": "NVML_COMPUTE_INSTANCE_PROFILE_CAPS_",
    "DeviceArch": "NVML_DEVICE_ARCH_", "DeviceMig": "NVML_DEVICE_MIG_",
    "EventType": ("nvmlEventType", r"nvmlEventType", [("MIG_CONFIG_CHANGE", "nvmlEventMigConfigChange")]),
    # the header spells the first NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW; the reference corrects it
    "FanControlPolicy": [("TEMPERATURE_CONTINUOUS_SW", "NVML_FAN_POLICY_TEMPERATURE_CONTINOUS_SW"),
                         ("MANUAL", "NVML_FAN_POLICY_MANUAL")],
    "FieldId": "NVML_FI_",
    "GpuFabricHealthMaskAccessTimeout": "NVML_GPU_FABRIC_HEALTH_MASK_ACCESS_TIMEOUT_RECOVERY_",
    "GpuFabricHealthMaskDegradedBw": "NVML_GPU_FABRIC_HEALTH_MASK_DEGRADED_BW_",
    "GpuFabricHealthMaskIncorrectConfiguration": "NVML_GPU_FABRIC_HEALTH_MASK_INCORRECT_CONFIGURATION_",
    "GpuFabricHealthMaskRouteRecovery": "NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_RECOVERY_",
    "GpuFabricHealthMaskRouteUnhealthy": "NVML_GPU_FABRIC_HEALTH_MASK_ROUTE_UNHEALTHY_",
    "GpuFabricHealthSummary": "NVML_GPU_FABRIC_HEALTH_SUMMARY_", "GpuFabricState": "NVML_GPU_FABRIC_STATE_",
    "GpuInstanceProfile": ("NVML_GPU_INSTANCE_", r"NVML_GPU_INSTANCE_PROFILE_(?!CAPS)"),
    "GpuInstanceProfileCaps": "NVML_GPU_INSTANCE_PROFILE_CAPS_",
    "GridLicenseExpiryEnum": "NVML_GRID_LICENSE_EXPIRY_", "GridLicenseState": "NVML_GRID_LICENSE_STATE_",
    "InitFlag": "NVML_INIT_FLAG_", "NvFBCSessionFlag": "NVML_NVFBC_SESSION_FLAG_",
    "NvlinkFirmwareUcodeType": "NVML_NVLINK_FIRMWARE_UCODE_TYPE_",
    "NvlinkLowPowerThreshold": ("NVML_NVLINK_LOW_POWER_THRESHOLD_", r"NVML_NVLINK_LOW_POWER_THRESHOLD_(?!UNIT)"),
    "NvlinkLowPowerThresholdUnit": ("NVML_NVLINK_LOW_POWER_THRESHOLD_", r"NVML_NVLINK_LOW_POWER_THRESHOLD_UNIT"),
    # the header's second member is NVML_NVLINK_POWER_STATE_LOW; the reference names it LOW_SPEED
    "NvlinkPowerState": [("HIGH_SPEED", "NVML_NVLINK_POWER_STATE_HIGH_SPEED"), ("LOW_SPEED", "NVML_NVLINK_POWER_STATE_LOW")],
    "NvlinkState": "NVML_NVLINK_STATE_",
    "PcieAtomicsCap": ("NVML_PCIE_ATOMICS_CAP_", r"NVML_PCIE_ATOMICS_CAP_", [("MAX", "NVML_PCIE_ATOMICS_OPS_MAX")]),
    "PcieLinkMaxSpeed": "NVML_PCIE_LINK_MAX_", "PowerMizerMode": "NVML_POWER_MIZER_MODE_",
    "PowerScope": "NVML_POWER_SCOPE_", "PowerSmoothingProfileParam": "NVML_POWER_SMOOTHING_PROFILE_PARAM_",
    "PowerSource": "NVML_POWER_SOURCE_", "RUSD": "NVML_RUSD_",
    "SystemEventType": ("nvmlSystemEventType", r"nvmlSystemEventType"),
    "VgpuPgpu": ("NVML_VGPU_PGPU_", r"NVML_VGPU_PGPU_H(ETER|OM)OGENEOUS_MODE$"), "VgpuPgpuVirtualizationCapMigration": "NVML_VGPU_PGPU_VIRTUALIZATION_CAP_MIGRATION_",
    "VgpuSchedulerArr": "NVML_VGPU_SCHEDULER_ARR_", "VgpuSchedulerEngineType": "NVML_VGPU_SCHEDULER_ENGINE_TYPE_",
    "VgpuSchedulerPolicy": "NVML_VGPU_SCHEDULER_POLICY_",
    "VgpuVirtualizationCapMigration": "NVML_VGPU_VIRTUALIZATION_CAP_MIGRATION_",
    "AdaptiveClockingInfoStatus": "NVML_ADAPTIVE_CLOCKING_INFO_STATUS_", "EncoderQuery": [(m, "NVML_ENCODER_QUERY_" + m) for m in ("H264", "HEVC", "AV1", "UNKNOWN")],
}}


def DEFINE_ENUMS_OF(model):
    """The DEFINE_ENUMS of a model's library, with their members from its #defines:
    [(name, [(member, value)])]; an enum none of whose #defines a release has is left out."""
    import re
    defines = [(n, v) for n, v in model.defines if isinstance(v, int)]
    values = dict(defines)
    # a list spec may also name members of a C enum (the reference's EncoderQuery repeats
    # nvmlEncoderType_t under the name of its tag, nvmlEncoderQueryType_enum)
    values.update((n, int(v)) for e in model.enums for n, v in e.members if n not in values)
    out = []
    module = f"_{model.variant}.{model.lib}" if getattr(model, "variant", "") else model.lib
    for name, spec in DEFINE_ENUMS.get(module, {}).items():
        members = []
        if isinstance(spec, list):
            members = [(m, values[d]) for m, d in spec if d in values]
        else:
            strip, pattern, extra = (spec, re.escape(spec), []) if isinstance(spec, str) else (list(spec) + [[]])[:3]
            for n, v in defines:
                if re.match(pattern, n) and not n.endswith(("_SHIFT", "_WIDTH")):
                    rest = n[len(strip):]
                    # camelCase: a `_` before each capital after a lower-case letter (PState -> PSTATE)
                    members.append((rest if rest.isupper() or "_" in rest or rest.isdigit()
                                    else re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", rest).upper(), v))
            members += [(m, values[d]) for m, d in extra if d in values]
        members = [(m if not m[:1].isdigit() else "_" + m, v) for m, v in members]
        if members:
            out.append((name, members))
    return out


# Input data of the struct-style modules followed by its byte count (the naming rule of
# model._sized_data looks for `size`): (function, data parameter) -> the count parameter.  A buffer
# must hold that many bytes.
SIZED_DATA = {
    ("cudlaModuleLoadFromMemory", "pModule"): "moduleSize",
}

# Functions of the struct-style modules that report a failure as -1, with errno set (cuFile's
# read, write and use count): NVIDIA's package raises the module's exception of errno then (a
# ValueError where errno names no status), and so does ours.
ERRNO_FAILURE = {"cuFileRead", "cuFileWrite", "cuFileUseCount"}

# Functions of the struct-style modules whose status is their result, not a failure to raise
# (cudlaGetLastError reports the last error of a device; nvrtcGetPCHCreateStatus, in
# cuda.bindings._v2.nvrtc, whether a header was precompiled).
STATUS_RESULT = {"cudlaGetLastError", "nvrtcGetPCHCreateStatus"}

# NVML's functions whose versioned struct parameter the reference fills from the function's own
# parameters: function -> (struct parameter, [(Python parameter, struct field)], what is returned:
# a field, "*" the struct, a tuple of them, or None).  The struct's `version` is set as for an
# output.  A field written "alloc:F:N" is an array the wrapper allocates, of as many items as the
# parameter says, for the pointer field F counted by the field N.  A field written "bytes:F[:N]"
# is an unsigned char array F given as bytes, as NVIDIA's package takes it (a C `char *` there):
# the argument's bytes are copied in (at most the field's size; any buffer, or a sequence of byte
# values, also does), and their number set into the field N; returned, it is that many bytes of F.
# An output "asked:F:N" is bytes the call writes where the pointer field F points, as many as the
# field N says after a first call with F NULL (the size query), returned as bytes.
STRUCT_ARGS = {
    "nvmlDeviceGetClockOffsets": ("info", [("clock_type", "type"), ("pstate", "pstate")], "*"),
    "nvmlDeviceGetConfComputeGpuAttestationReport": ("gpuAtstReport", [("nonce", "bytes:nonce")], "*"),
    "nvmlDeviceGetFanSpeedRPM": ("fanSpeed", [("fan", "fan")], "speed"),
    "nvmlDeviceGetHandleByUUIDV": ("uuid", [("type", "type"), ("uuid", "value.str")], None),
    "nvmlDeviceGetProcessesUtilizationInfo": ("procesesUtilInfo", [("last_seen_time_stamp", "last_seen_time_stamp")], "*"),
    "nvmlDeviceGetRunningProcessDetailList": ("plist", [("mode", "mode")], "*"),
    # the reference names this parameter as the header does
    "nvmlDeviceGetTemperatureV": ("temperature", [("sensorType", "sensor_type")], "temperature"),
    "nvmlDeviceGetVgpuProcessesUtilizationInfo": ("vgpuProcUtilInfo", [("last_seen_time_stamp", "last_seen_time_stamp")], "*"),
    "nvmlDeviceGetVgpuTypeCreatablePlacements": ("pPlacementList", [("mode", "mode")], "*"),
    "nvmlDeviceGetVgpuTypeSupportedPlacements": ("pPlacementList", [("mode", "mode")], "*"),
    # the reference takes the new hostname as text
    "nvmlDeviceSetHostname_v1": ("hostname", [("hostname", "value")], None),
    "nvmlDeviceSetNvLinkDeviceLowPowerThreshold": ("info", [("threshold", "low_pwr_threshold")], None),
    "nvmlDeviceSetPowerManagementLimit_v2": ("powerValue", [("power_scope", "power_scope"), ("power_value_mw", "power_value_mw")], None),
    "nvmlDeviceSetRusdSettings_v1": ("settings", [("poll_mask", "poll_mask")], None),
    "nvmlDeviceSetVgpuHeterogeneousMode": ("pHeterogeneousMode", [("mode", "mode")], None),
    # (the payload, asked for with data NULL first, as bytes: as the reference returns it)
    "nvmlEventSetGetContextData_v1": ("params", [("index", "index")], "asked:data_:data_size"),
    "nvmlEventSetGetContextInfo_v1": ("params", [("index", "index")], "*"),
    "nvmlEventSetGetGpuOperationalEventContextLegacyXid_v1": ("params", [("index", "index")], "*"),
    "nvmlEventSetWait_v3": ("params", [("timeout_ms", "timeout_ms")], "*"),
    "nvmlGpuInstanceGetVgpuTypeCreatablePlacements": ("pCreatablePlacementInfo", [("vgpu_type_id", "vgpu_type_id")], "*"),
    "nvmlGpuInstanceSetVgpuHeterogeneousMode": ("pHeterogeneousMode", [("mode", "mode")], None),
    "nvmlSystemEventSetCreate": ("request", [], "set"),
    "nvmlSystemEventSetFree": ("request", [("event_set", "set")], None),
    # (the events, as the reference returns them)
    "nvmlSystemEventSetWait": ("request", [("event_set", "set"), ("timeout_ms", "timeoutms"),
                                           ("buffer_size", "alloc:data_:data_size")], "data_"),
    "nvmlSystemRegisterEvents": ("request", [("event_types", "event_types"), ("event_set", "set")], None),
    "nvmlSystemSetConfComputeKeyRotationThresholdInfo": ("pKeyRotationThrInfo", [("max_attacker_advantage", "max_attacker_advantage")], None),
    "nvmlVgpuTypeGetMaxInstancesPerGpuInstance": ("pMaxInstance", [("vgpu_type_id", "vgpu_type_id")], "max_instance_per_gi"),
    "nvmlDeviceReadPRMCounters_v1": ("counterList", [("counters", "counters")], "counters"),
    # (the PRM status and the output data, as the reference returns them)
    "nvmlDeviceReadWritePRM_v1": ("buffer", [("in_data", "bytes:in_data:data_size")], ("status", "bytes:out_data:data_size")),
}

# Union outputs whose member the call fills depends on an attribute argument, read as NVIDIA's
# package reads them: (function, union parameter) -> (attribute parameter, {value: the number
# member read}, {value: (the pointer member the array goes to, the value giving its count)},
# the array's item struct).  Any other value is a ValueError.
UNION_BY_ATTRIBUTE = {
    ("cudlaModuleGetAttributes", "attribute"): (
        "attrType", {0: "numInputTensors", 1: "numOutputTensors", 4: "numOutputTensors"},
        {2: ("inputTensorDesc", 0), 3: ("outputTensorDesc", 1), 5: ("outputTensorDesc", 4)},
        "cudlaModuleTensorDescriptor"),
}

# Arguments NVIDIA's package refuses by value with the library's own status, without calling it:
# (function, parameter) -> (the condition on the parameter's C value `{}`, the status raised).
# cuDLA's standalone mode (CUDLA_STANDALONE, bit 0 of the flags) needs NvSciSync objects that no
# Python binding makes.
REFUSED_VALUES = {("cudlaCreateDevice", "flags"): ("{} & 1", "cudlaErrorUnsupportedOperation")}

# Versioned output structs for which NVIDIA's package passes another version than the header's
# parameter type (the functions take "v2 or later"): (function, parameter) -> the struct it fills,
# or {release: the struct} where only that release's twin does.
OUTPUT_VERSION = {
    ("nvmlDeviceGetGpuInstanceProfileInfoV", "info"): "nvmlGpuInstanceProfileInfo_v3_t",
    ("nvmlDeviceGetGpuInstanceProfileInfoByIdV", "info"): "nvmlGpuInstanceProfileInfo_v3_t",
    # (NVIDIA's 12.9.10 fills the older versions where the 12.9 pin's header has newer ones)
    ("nvmlDeviceGetGpuFabricInfoV", "gpuFabricInfo"): {"12.9": "nvmlGpuFabricInfo_v2_t"},
    ("nvmlDeviceGetNvLinkInfo", "info"): {"12.9": "nvmlNvLinkInfo_v1_t"},
    ("nvmlDeviceGetPlatformInfo", "platformInfo"): {"12.9": "nvmlPlatformInfo_v1_t"},
}

# String outputs that NVIDIA's package declares as one `char` and returns as the code of the
# first character (an int), not the text.
CHAR_RESULT = {"nvmlDeviceGetGspFirmwareVersion"}

# Struct-style functions whose array of numbers NVIDIA's package returns as a Cython array of a
# copy (cython.view.array, `array`), not as a memoryview of it as the others.
ARRAY_RESULT = {"nvmlDeviceGetSupportedPerformanceStates"}

# NVML's functions that return one field of the versioned struct they fill (the reference's):
# (function, struct parameter) -> field.
UNWRAP_OUTPUT = {
    ("nvmlDeviceGetCurrentClockFreqs", "currentClockFreqs"): "str",
    ("nvmlDeviceGetPerformanceModes", "perfModes"): "str",
    ("nvmlDeviceGetDramEncryptionMode", "current"): "encryption_state",
    ("nvmlDeviceGetDramEncryptionMode", "pending"): "encryption_state",
    ("nvmlDeviceGetHostname_v1", "hostname"): "value",
    ("nvmlDeviceGetMarginTemperature", "marginTempInfo"): "margin_temperature",
    ("nvmlDeviceGetPdi", "pdi"): "value",
    ("nvmlDeviceGetUnrepairableMemoryFlag_v1", "unrepairableMemoryStatus"): "b_unrepairable_memory",
    ("nvmlDeviceGetVgpuHeterogeneousMode", "pHeterogeneousMode"): "mode",
    ("nvmlGpuInstanceGetVgpuHeterogeneousMode", "pHeterogeneousMode"): "mode",
    ("nvmlSystemGetConfComputeKeyRotationThresholdInfo", "pKeyRotationThrInfo"): "attacker_advantage",
    ("nvmlSystemGetDriverBranch", "branchInfo"): "branch",
    ("nvmlVgpuInstanceGetPlacementId", "pPlacement"): "placement_id",
    ("nvmlVgpuInstanceGetRuntimeStateSize", "pState"): "size_",
    ("nvmlDeviceGetCapabilities", "caps"): "cap_mask",
}

# Arguments the struct-style wrappers pass themselves: (function, parameter) -> value (a byte
# size, or a count the header documents as fixed).
FIXED_ARG = {
    ("nvmlSystemGetDriverBranch", "length"): 80,              # NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
    ("nvmlDeviceGetSupportedPerformanceStates", "size"): 64,  # NVML_MAX_GPU_PERF_PSTATES entries of 4 bytes
    # the size of the one struct the call fills (the reference returns the struct alone)
    ("nvmlDeviceGetVgpuMetadata", "bufferSize"): "sizeof(cynvml.nvmlVgpuPgpuMetadata_t)",
    ("nvmlVgpuInstanceGetMetadata", "bufferSize"): "sizeof(cynvml.nvmlVgpuMetadata_t)",
}

# Struct-array arguments the struct-style wrappers take as the module's struct object or as a
# list of the value of its first field (NVML's field ids), and return filled: (function,
# parameter) -> that field.  Given no item, the struct object (of none) is returned at once,
# without a call, as NVIDIA's package does.
RECORDS_IO = {
    ("nvmlDeviceGetFieldValues", "values"): "field_id",
    ("nvmlDeviceClearFieldValues", "values"): "field_id",
}
# Those of them the call only reads: not returned (NVIDIA's device_clear_field_values returns None).
RECORDS_IN = {("nvmlDeviceClearFieldValues", "values")}

# Counts the struct-style modules take from the length of the struct array they count (the
# reference's readv(fh, iov, file_offset, flags)): (function, count) -> the array parameter.
IMPLICIT_COUNT = {
    ("nvmlDeviceGetFieldValues", "valuesCount"): "values",
    ("nvmlDeviceClearFieldValues", "valuesCount"): "values",
    ("cuFileReadv", "iovcnt"): "iov",
    ("cuFileWritev", "iovcnt"): "iov",
}

# Parameters of the struct-style modules with a default value (the reference's): (function,
# parameter) -> value.
PARAM_DEFAULT = {
    ("cuFileReadv", "flags"): 0,
    ("cuFileWritev", "flags"): 0,
}

# The builtin-shadowing names of exception classes (one per status, `<Status words>Error`, named
# with libs' `builtin_prefix` where they would be Python's own) that a module also keeps as
# aliases, as the reference's does: module -> {alias: class}.
ERROR_CLASS_ALIASES = {"nvml": {"MemoryError": "NvmlMemoryError", "TimeoutError": "NvmlTimeoutError"}}

# Public parameter names of the snake_case modules that are not the C name in snake_case (the
# reference package's names): (function, C parameter) -> name.
PUBLIC_PARAM = {
    ("nvFatbinDestroy", "handle_indirect"): "handle",   # the handle, passed by value
    # (release, function, parameter): the name the reference's build of that release has
    ("13.0", "cuFileGetBARSizeInKB", "gpuIndex"): "gpu_ind_ex",   # cuda-bindings 13.0.x spells it so
}

# Output char buffers whose size is another parameter.
STRBUF_LEN = {
    ("cuFileGetParameterString", "desc_str"): "len",
    ("cuDeviceGetName", "name"): "len",
    ("cuDeviceGetPCIBusId", "pciBusId"): "len",
}

# Calls whose failure the library explains in a log it keeps: (size query, log getter).  The
# snake_case modules read the log after a failure into the exception's `program_log` attribute
# (ERROR_LOG_ATTR), so a compile error says what is wrong with the source; str() stays NVIDIA's
# message, the status alone, and no PEP 678 note is added, since NVIDIA's raises the error bare and
# pytest's match=, IPython, logging and tracebacks all show notes (CUDA_BINDINGS_ERROR_NOTES=1 asks
# for the log as a note too: _internal.utils.with_detail).  The checked companion
# (cuda_bindings/checked, ours alone) adds the log to its message.
ERROR_LOG = {
    "nvvmCompileProgram": ("nvvmGetProgramLogSize", "nvvmGetProgramLog"),
    "nvvmVerifyProgram": ("nvvmGetProgramLogSize", "nvvmGetProgramLog"),
    "nvrtcCompileProgram": ("nvrtcGetProgramLogSize", "nvrtcGetProgramLog"),
}
ERROR_LOG_ATTR = "program_log"

# Attribute-typed values: attribute enum -> member -> C type of the value ("*" for every member;
# "T[]" an array of T filling the caller's data size).  The C API passes these through void*; the
# type depends on the attribute (the header's doxygen for each enum member says which).  Where the
# doxygen leaves the Python type open, it is the reference package's: the memory type, access
# flags, handle types and GPUDirect RDMA capability of a pointer come back as plain ints, its
# range start as a CUdeviceptr.  Every value has 8 bytes of zeroed storage at least.
ATTRIBUTE_TYPES = {
    "CUpointer_attribute": {
        "CU_POINTER_ATTRIBUTE_CONTEXT": "CUcontext",
        "CU_POINTER_ATTRIBUTE_MEMORY_TYPE": "unsigned int",
        "CU_POINTER_ATTRIBUTE_DEVICE_POINTER": "CUdeviceptr",
        "CU_POINTER_ATTRIBUTE_HOST_POINTER": "void*",
        "CU_POINTER_ATTRIBUTE_P2P_TOKENS": "CUDA_POINTER_ATTRIBUTE_P2P_TOKENS",
        "CU_POINTER_ATTRIBUTE_SYNC_MEMOPS": "bool",
        "CU_POINTER_ATTRIBUTE_BUFFER_ID": "unsigned long long",
        "CU_POINTER_ATTRIBUTE_IS_MANAGED": "bool",
        "CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL": "int",
        "CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE": "bool",
        "CU_POINTER_ATTRIBUTE_RANGE_START_ADDR": "CUdeviceptr",
        "CU_POINTER_ATTRIBUTE_RANGE_SIZE": "size_t",
        "CU_POINTER_ATTRIBUTE_MAPPED": "bool",
        "CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES": "unsigned long long",
        "CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE": "unsigned int",
        "CU_POINTER_ATTRIBUTE_ACCESS_FLAGS": "unsigned long long",
        "CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE": "CUmemoryPool",
        "CU_POINTER_ATTRIBUTE_MAPPING_SIZE": "size_t",
        "CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR": "void*",
        "CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID": "unsigned long long",
        "CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE": "bool",
    },
    "CUmemPool_attribute": {
        "CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES": "int",
        "CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC": "int",
        "CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES": "int",
        "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD": "cuuint64_t",
        "CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT": "cuuint64_t",
        "CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH": "cuuint64_t",
        "CU_MEMPOOL_ATTR_USED_MEM_CURRENT": "cuuint64_t",
        "CU_MEMPOOL_ATTR_USED_MEM_HIGH": "cuuint64_t",
        "CU_MEMPOOL_ATTR_ALLOCATION_TYPE": "CUmemAllocationType",
        "CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES": "CUmemAllocationHandleType",
        "CU_MEMPOOL_ATTR_LOCATION_ID": "int",
        "CU_MEMPOOL_ATTR_LOCATION_TYPE": "CUmemLocationType",
        "CU_MEMPOOL_ATTR_MAX_POOL_SIZE": "cuuint64_t",
        "CU_MEMPOOL_ATTR_HW_DECOMPRESS_ENABLED": "int",
    },
    "CUgraphMem_attribute": {"*": "cuuint64_t"},
    "cudaGraphMemAttributeType": {"*": "unsigned long long"},
    "cudaMemRangeAttribute": {
        "cudaMemRangeAttributeReadMostly": "int",
        "cudaMemRangeAttributePreferredLocation": "int",
        "cudaMemRangeAttributeAccessedBy": "int[]",
        "cudaMemRangeAttributeLastPrefetchLocation": "int",
        "cudaMemRangeAttributePreferredLocationType": "cudaMemLocationType",
        "cudaMemRangeAttributePreferredLocationId": "int",
        "cudaMemRangeAttributeLastPrefetchLocationType": "cudaMemLocationType",
        "cudaMemRangeAttributeLastPrefetchLocationId": "int",
    },
    "cudaMemPoolAttr": {
        "cudaMemPoolReuseFollowEventDependencies": "int",
        "cudaMemPoolReuseAllowOpportunistic": "int",
        "cudaMemPoolReuseAllowInternalDependencies": "int",
        "cudaMemPoolAttrReleaseThreshold": "unsigned long long",
        "cudaMemPoolAttrReservedMemCurrent": "unsigned long long",
        "cudaMemPoolAttrReservedMemHigh": "unsigned long long",
        "cudaMemPoolAttrUsedMemCurrent": "unsigned long long",
        "cudaMemPoolAttrUsedMemHigh": "unsigned long long",
        "cudaMemPoolAttrAllocationType": "cudaMemAllocationType",
        "cudaMemPoolAttrExportHandleTypes": "cudaMemAllocationHandleType",
        "cudaMemPoolAttrLocationId": "int",
        "cudaMemPoolAttrLocationType": "cudaMemLocationType",
        "cudaMemPoolAttrMaxPoolSize": "unsigned long long",
        "cudaMemPoolAttrHwDecompressEnabled": "int",
    },
    "CUmem_range_attribute": {
        "CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY": "int",
        "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION": "int",
        "CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY": "int[]",
        "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION": "int",
        "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE": "CUmemLocationType",
        "CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID": "int",
        "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE": "CUmemLocationType",
        "CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID": "int",
    },
    # what a shareable-handle export writes (the enum's doxygen names the type of each): an int
    # (a POSIX fd, a KMT handle), a pointer-sized Win32 HANDLE, or a 64-byte fabric handle (so 8
    # bytes of storage would be overrun); NONE is refused by the driver, read as an int as the
    # reference does
    "CUmemAllocationHandleType": {
        "CU_MEM_HANDLE_TYPE_NONE": "int",
        "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR": "int",
        "CU_MEM_HANDLE_TYPE_WIN32": "void*",
        "CU_MEM_HANDLE_TYPE_WIN32_KMT": "unsigned int",
        "CU_MEM_HANDLE_TYPE_FABRIC": "CUmemFabricHandle",
    },
    "cudaMemAllocationHandleType": {
        "cudaMemHandleTypeNone": "int",
        "cudaMemHandleTypePosixFileDescriptor": "int",
        "cudaMemHandleTypeWin32": "void*",
        "cudaMemHandleTypeWin32Kmt": "unsigned int",
        "cudaMemHandleTypeFabric": "cudaMemFabricHandle_t",
    },
    "CUcoredumpSettings": {
        "CU_COREDUMP_ENABLE_ON_EXCEPTION": "bool",
        "CU_COREDUMP_TRIGGER_HOST": "bool",
        "CU_COREDUMP_LIGHTWEIGHT": "bool",
        "CU_COREDUMP_ENABLE_USER_TRIGGER": "bool",
        "CU_COREDUMP_FILE": "char[1024]",
        "CU_COREDUMP_PIPE": "char[1024]",
        "CU_COREDUMP_GENERATION_FLAGS": "int",
    },
}

# (function, value parameter) -> (attribute parameter, attribute enum[, data size parameter]):
# parameters whose type is chosen by an attribute.  Inputs are converted from the Python value;
# outputs come back typed.  With a size parameter the caller sizes the storage (at least that
# many bytes are given to the C call; a "T[]" value is as many items as fit).
ATTRIBUTE_PARAMS = {
    ("cuMemRangeGetAttribute", "data"): ("attribute", "CUmem_range_attribute", "dataSize"),
    ("cudaMemRangeGetAttribute", "data"): ("attribute", "cudaMemRangeAttribute", "dataSize"),
    ("cuPointerGetAttribute", "data"): ("attribute", "CUpointer_attribute"),
    ("cuPointerSetAttribute", "value"): ("attribute", "CUpointer_attribute"),
    ("cuMemPoolGetAttribute", "value"): ("attr", "CUmemPool_attribute"),
    ("cuMemPoolSetAttribute", "value"): ("attr", "CUmemPool_attribute"),
    ("cuDeviceGetGraphMemAttribute", "value"): ("attr", "CUgraphMem_attribute"),
    ("cuDeviceSetGraphMemAttribute", "value"): ("attr", "CUgraphMem_attribute"),
    ("cudaMemPoolGetAttribute", "value"): ("attr", "cudaMemPoolAttr"),
    ("cudaMemPoolSetAttribute", "value"): ("attr", "cudaMemPoolAttr"),
    ("cudaDeviceGetGraphMemAttribute", "value"): ("attr", "cudaGraphMemAttributeType"),
    ("cudaDeviceSetGraphMemAttribute", "value"): ("attr", "cudaGraphMemAttributeType"),
    ("cuCoredumpGetAttribute", "value"): ("attrib", "CUcoredumpSettings"),
    ("cuCoredumpGetAttributeGlobal", "value"): ("attrib", "CUcoredumpSettings"),
    ("cuCoredumpSetAttribute", "value"): ("attrib", "CUcoredumpSettings"),
    ("cuCoredumpSetAttributeGlobal", "value"): ("attrib", "CUcoredumpSettings"),
    # outputs (PARAM_ROLE) whose type is chosen by the handle type asked for
    ("cuMemExportToShareableHandle", "shareableHandle"): ("handleType", "CUmemAllocationHandleType"),
    ("cuMemPoolExportToShareableHandle", "handle_out"): ("handleType", "CUmemAllocationHandleType"),
    ("cudaMemPoolExportToShareableHandle", "shareableHandle"): ("handleType", "cudaMemAllocationHandleType"),
}

# `void** data` outputs holding one attribute value per attribute of a list: (function, data
# parameter) -> (attribute list parameter, attribute enum, data sizes list parameter or None, count
# parameter).  The call gets an array of pointers to storage for each value; a list comes back.
ATTRIBUTE_LISTS = {
    ("cuPointerGetAttributes", "data"): ("attributes", "CUpointer_attribute", None, "numAttributes"),
    ("cuMemRangeGetAttributes", "data"): ("attributes", "CUmem_range_attribute", "dataSizes", "numAttributes"),
    ("cudaMemRangeGetAttributes", "data"): ("attributes", "cudaMemRangeAttribute", "dataSizes", "numAttributes"),
}

# Kernel-parameter arguments: packed from None / int / buffer of pointers / (values, types).
KERNEL_PARAMS = {
    ("cuLaunchKernel", "kernelParams"),
    ("cuLaunchCooperativeKernel", "kernelParams"),
    ("cuLaunchKernelEx", "kernelParams"),
    ("cudaLaunchKernel", "args"),
    ("cudaLaunchCooperativeKernel", "args"),
    ("cudaLaunchKernelExC", "args"),
}

# `void**` parameters are outputs (an address is returned) except these inputs.
VOIDPP_INPUTS = {"extra", "kernelParams", "args", "dsts", "srcs", "dptrs"}

# Entry points whose header is not in the pinned wheels (cuda_profiler_api.h, cudaProfiler.h):
# declared here as (name, return type) with no parameters.
EXTRA_FUNCTIONS = {
    "runtime": [("cudaProfilerStart", "cudaError_t"), ("cudaProfilerStop", "cudaError_t")],
}

# Cython-level functions that the headers do not declare, each implemented by calling an entry
# point of the same library with the same parameters: name -> (entry point, reason).
CALL_FUNCTIONS = {
    "runtime": {
        "getLocalRuntimeVersion": ("cudaRuntimeGetVersion",
                                   "the version of the CUDA runtime library these bindings loaded "
                                   "(part of the reference package's cyruntime C-API)"),
    },
}

# Python-level helpers of the runtime module.  make_* build a struct from its fields in order
# (they are inline C functions in driver_functions.h, not library symbols).
MAKE_FUNCTIONS = {
    "make_cudaPitchedPtr": ("cudaPitchedPtr", ["d", "p", "xsz", "ysz"], ["ptr", "pitch", "xsize", "ysize"]),
    "make_cudaPos": ("cudaPos", ["x", "y", "z"], ["x", "y", "z"]),
    "make_cudaExtent": ("cudaExtent", ["w", "h", "d"], ["width", "height", "depth"]),
}

# Host memory a call reads or writes a stated number of bytes of: {function: {parameter: size}},
# the size an expression of the function's parameters.  Given as a Python buffer or bytes object
# (whose length the wrapper knows), the argument must hold that many bytes, or the library would
# read or write past its end: a crash, or memory silently overwritten.  An int address is the
# caller's to get right.  For a 2D copy the last row needs only `width` bytes.
_ROWS = "((height - 1) * {} + width if height else 0)"
BUFFER_EXTENT = {
    **{f: {"srcHost": "ByteCount"} for f in ("cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuMemcpyHtoA",
                                             "cuMemcpyHtoAAsync")},
    **{f: {"dstHost": "ByteCount"} for f in ("cuMemcpyDtoH", "cuMemcpyDtoHAsync", "cuMemcpyAtoH",
                                             "cuMemcpyAtoHAsync")},
    "cuMemHostRegister": {"p": "bytesize"},
    "cudaHostRegister": {"ptr": "size"},
    **{f: {"dst": "count", "src": "count"} for f in (
        "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpyPeer", "cudaMemcpyPeerAsync",
        "cudaGraphAddMemcpyNode1D", "cudaGraphMemcpyNodeSetParams1D", "cudaGraphExecMemcpyNodeSetParams1D")},
    **{f: {"src": "count"} for f in (
        "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemcpyToArray", "cudaMemcpyToArrayAsync",
        "cudaGraphAddMemcpyNodeToSymbol", "cudaGraphMemcpyNodeSetParamsToSymbol",
        "cudaGraphExecMemcpyNodeSetParamsToSymbol")},
    **{f: {"dst": "count"} for f in (
        "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", "cudaMemcpyFromArray", "cudaMemcpyFromArrayAsync",
        "cudaGraphAddMemcpyNodeFromSymbol", "cudaGraphMemcpyNodeSetParamsFromSymbol",
        "cudaGraphExecMemcpyNodeSetParamsFromSymbol")},
    "cudaMemset": {"devPtr": "count"},
    "cudaMemsetAsync": {"devPtr": "count"},
    **{f: {"dst": _ROWS.format("dpitch"), "src": _ROWS.format("spitch")} for f in ("cudaMemcpy2D", "cudaMemcpy2DAsync")},
    **{f: {"src": _ROWS.format("spitch")} for f in ("cudaMemcpy2DToArray", "cudaMemcpy2DToArrayAsync")},
    **{f: {"dst": _ROWS.format("dpitch")} for f in ("cudaMemcpy2DFromArray", "cudaMemcpy2DFromArrayAsync")},
    **{f: {"devPtr": _ROWS.format("pitch")} for f in ("cudaMemset2D", "cudaMemset2DAsync")},
}

# The BUFFER_EXTENT parameters a call writes (memcpy destinations, memset targets): given as a
# Python object, it must be a writable buffer; bytes and read-only views raise TypeError naming
# the argument, where the library would write into an immutable object (NVIDIA's package lets
# it: cuMemcpyDtoH(b"....", dptr, 4) changes the bytes object).
WRITTEN_BUFFERS = {"dst", "dstHost", "devPtr"}

# `char*` buffers the library fills, whose size is another parameter: (function, buffer) -> the
# size parameter.  A writable buffer of at least that many bytes (ValueError otherwise: the
# library would write past its end; TypeError for bytes, which are immutable).
CALLER_BUFFERS = {
    ("cuLogsDumpToMemory", "buffer"): "size",
    ("cudaLogsDumpToMemory", "buffer"): "size",
}

# JIT option lists: options (enum array) + optionValues (void* array whose items are values).
JIT_OPTION_VALUES = {"optionValues", "jitOptionsValues", "libraryOptionValues"}
JIT_OPTIONS = {"options", "jitOptions", "libraryOptions"}

# char[] struct fields that hold binary data, returned whole; every other char[] field is a C
# string, returned up to its first NUL (cudaDeviceProp.name).
BINARY_CHAR_FIELDS = {"bytes", "luid", "reserved", "reserved0", "reserved1", "pad", "_oversize",
                      "_internal_padding", "opaque", "asBytes"}

# Binary char[] fields that repr shows as hex digits (the reference package's display of UUIDs
# and LUIDs); the values themselves are bytes like every binary char[] field.
HEX_CHAR_FIELDS = {"bytes", "luid"}

# Field values of a newly made struct other than zero: struct -> {field: value}.  A struct
# (not a union) holding one of these as a member gets its values too (emit_py.struct_defaults).
STRUCT_DEFAULTS = {
    "dim3": {"x": 1, "y": 1, "z": 1},   # the C++ constructor's defaults, as the reference's dim3()
}

# Calls made WITHOUT releasing the GIL: each is a lookup that cannot block and takes no lock
# (releasing and re-taking the GIL would cost more than the call).  Every other C call releases it.
# Driver entries are checked on the GPU by tests/test_keep_gil.py: benchmarks/lockprobe.c counts
# the pthread locks, waits and kernel entries (ioctl, poll, syscall) a call reaches from the calling
# thread, and each of these reaches none (580.x driver, 100,000 calls; cuEventQuery and
# cuStreamQuery take two mutexes per call and cuPointerGetAttribute one, so they release the GIL).
KEEP_GIL = {
    "cuGetErrorString": "looks up a static string table",
    "cuGetErrorName": "looks up a static string table",
    "cuDriverGetVersion": "returns a constant of the loaded driver",
    "cuCtxGetCurrent": "reads the calling thread's current-context slot",
    "cuCtxGetDevice": "reads the calling thread's current context's device; lockprobe: none",
    "cuDeviceGet": "maps an ordinal to a device handle; lockprobe: none",
    "cuDeviceGetCount": "returns the count found by cuInit; lockprobe: none",
    "nvrtcVersion": "returns constants of the loaded library",
    "nvrtcGetErrorString": "looks up a static string table",
    "cudaGetErrorString": "looks up a static string table",
    "cudaGetErrorName": "looks up a static string table",
    "nvJitLinkVersion": "returns constants of the loaded library",
    "nvvmVersion": "returns constants of the loaded library",
    "nvvmIRVersion": "returns constants of the loaded library",
    "nvvmGetErrorString": "looks up a static string table",
}

# Calls that keep the GIL only for some values of one argument: (argument, its enum, excluded
# members, reason).  The GIL is kept for every member of the enum in the 13.0 headers except the
# excluded ones; any other value (an excluded member, an int the headers do not name) releases it.
# tests/test_keep_gil.py probes every kept value with lockprobe on the GPU machine.
KEEP_GIL_UNLESS = {
    "cuDeviceGetAttribute": (
        "attrib", "CUdevice_attribute",
        ("CU_DEVICE_ATTRIBUTE_CLOCK_RATE", "CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE",
         "CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT", "CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED",
         "CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED", "CU_DEVICE_ATTRIBUTE_MAX"),
        "device properties are read from the table cuInit fills (lockprobe, 580.x driver: no lock, "
        "wait or kernel entry); the clock rates and the kernel timeout are read from the kernel "
        "(ioctl), the two host-atomics attributes behind a mutex, and _MAX is not an attribute"),
}

# Functions not wrapped at the Python level, with the reason.  (They stay callable from Cython.)
SKIP_PYTHON = {}


# Handle types whose value the library itself dereferences, so a made-up value crashes it: the
# wrappers refuse values in the first page of memory (True, a small count or enum member given
# by mistake), where no object can lie (cuda_bindings/_base.pyx, _not_in_page_zero).  The
# driver's handles are not here: some are small constants (CU_STREAM_LEGACY is 0x1).  The
# snake_case modules' handles (nvJitLink, NVVM) get the same check in `_live`.
LIBRARY_HANDLES = {
    "nvrtcProgram": "an NVRTC program",
}

def v2_first_page(fn_name, handle_type):
    """What a handle of this type is ("an NVRTC program"), where _v2's fn_name refuses one in the
    first page of memory (LIBRARY_HANDLES, as the tuple style); else None.  The driver's handles
    are passed on, as in the tuple style (docs/v2.md, "Bad inputs")."""
    return LIBRARY_HANDLES.get(handle_type)


# Library-handle parameters (LIBRARY_HANDLES) that the library does not read while another
# argument is NULL, which it refuses first: (function, handle parameter) -> that parameter.  The
# first-page check applies only where it is not NULL, so that the library's status comes back as
# through NVIDIA's package.  NVRTC returns NVRTC_ERROR_INVALID_INPUT for a NULL flow callback
# whatever the program is (with a callback it crashes on a program in the first page).
HANDLE_READ_UNLESS_NULL = {("nvrtcSetFlowCallback", "prog"): "callback"}


# Handle parameters that also take a handle of another type where the function's doxygen text
# says so: handle type -> (the other type, a regular expression over the text).  The driver reads
# a context-less kernel (CUkernel, from cuLibraryGetKernel) given where a CUfunction goes to the
# launch and occupancy calls ("Function ::CUfunction or Kernel ::CUkernel to launch", "can also be
# used with context-less kernel ::CUkernel ... by casting to ::CUfunction"); the wrappers take
# any handle, and the stubs' types say that these take a CUkernel (and runtime.cudaKernel_t).
HANDLE_ALSO = {
    "CUfunction": ("CUkernel", r"Kernel ::CUkernel|context-less kernel ::CUkernel"),
}

# Handle classes that NVIDIA's package makes subclasses of the class of the same C type in another
# module (pytypes.peers): runtime.cudaStream_t is a driver.CUstream (isinstance holds, its repr is
# `<CUstream 0x5>`, it equals the CUstream of its value).  These are the runtime handles of CUDA 11
# that are the driver's types; those CUDA added since (cudaKernel_t, cudaLibrary_t,
# cudaGraphDeviceNode_t, cudaLogsCallbackHandle, cudaDevResourceDesc_t) are the driver's types too,
# but NVIDIA's classes of them are classes of their own (seen in 12.9.10, 13.0.3 and 13.5.0), so
# ours are.  Each must be a peer (the generator refuses one that is not).
PEER_SUBCLASSES = {
    "cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaGraphNode_t", "cudaGraphExec_t", "cudaFunction_t",
    "cudaUserObject_t", "cudaMemPool_t", "cudaEglStreamConnection",
}

# How NVIDIA's package of a release (its twin: tests/conformance/run.TWINS) is made, where that
# differs from 13.0.3: NVIDIA's 12.9.x and 13.2 onwards come from a later generation of its
# generator, and each build matches the package of its own release.
#   fast_enum      enums are classes of cuda.bindings._internal._fast_enum.FastEnum (numba-cuda
#                  and cuda.core look for that module), not enum.IntEnum; reading an enum field
#                  that holds no member's value raises ValueError (13.0.3: None)
#   int_enum_libs  struct-style modules whose enums stay enum.IntEnum where fast_enum is on
#   hidden_fields  struct fields that are not Python attributes (reserved and padding bytes):
#                  library -> a regular expression over field names; the C declarations keep them
#   test_helpers   the package has cuda.bindings._test_helpers.arch_check (NVML helpers for pytest
#                  suites, which cuda.core's system tests import): 12.9.10 alone ships it
#   float_address  a float given as a `void*` argument or field is truncated to an int address,
#                  as every other address and handle is (13.0.3 refuses it: TypeError); the
#                  generated _version.FLOAT_ADDRESS tells cuda_bindings/_base.pyx
#   signed32       the values that NVIDIA's package reads as a C int where they have 32 bits with
#                  the top one set: "defines" (12.9.10's and 13.0.3's CUDA_EGL_INFINITE_TIMEOUT,
#                  0xFFFFFFFF, is -1; 13.5.0's is 4294967295), "enums" (13.5.0's
#                  CU_COREDUMP_LOG_ONLY, `1 << 31`, is -2147483648): common.twin_value
#   zeroed_structs struct classes whose new objects are all zeros, where C++ would construct a
#                  member to other values (emit_py.struct_defaults): 13.5.0's cudaKernelNodeParamsV2
#                  (which 13.5 gives a union of func, kern and cuFunc) has gridDim and blockDim
#                  (0, 0, 0), its cudaKernelNodeParams (1, 1, 1) as every other release's
#   private        NVIDIA's private C layers of the release: library -> the cimportable modules
#                  (each with a C-API: one thin nogil function per entry point, `_cuInit`) that
#                  its package keeps under the public ones; a layer whose name ends in `_ptds`
#                  calls the per-thread default stream variants, the others what
#                  CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM selects, as the public functions do
#                  (codegen/emit_private.py, docs/clients.md)
#   ptds_any_value CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM selects the per-thread variants when
#                  set to any value but the empty one, "0" and "false" included (13.0.3); without
#                  it, as int(value) != 0 (12.9.10, 13.5.0; ours reads words with utils.envvar_bool,
#                  where those raise ValueError): the generated _version.PTDS_ANY_VALUE tells
#                  cuda_bindings/_loader.py
#   private_aliases the libraries whose layers declare the header's #define type aliases
#                  (cudaStreamAttrID) themselves, so the C-API strings name the layer's own
#                  types: 12.9.10's and 13.0.3's `_bindings.cyruntime(_ptds)`
_RESERVED = r"^(reserved|padding|unused)\d*$"


def _internal_layers(*libs):
    return {lib: (f"_internal.{lib}",) for lib in libs}


TWIN_STYLE = {
    "12.9": {"private": {**_internal_layers("driver", "nvrtc", "nvjitlink", "nvvm", "nvfatbin", "cufile", "nvml"),
                         "runtime": ("_bindings.cyruntime", "_bindings.cyruntime_ptds")},
             "private_aliases": ("runtime",),
             "fast_enum": True, "hidden_fields": {"driver": _RESERVED},    # 12.9.10's runtime shows them
             "none_is_null": True, "test_helpers": True, "returns_none": ("cuFileUseCount",), "float_address": True,
             "signed32": ("defines",),
             "buffer_error": "buf must be None, a Python int representing the pointer address to a valid "
                             "buffer, or a 1D contiguous {adj}buffer, of size {size}"},
    "13.0": {"private": {**_internal_layers("nvjitlink", "nvvm", "cufile"),
                         "driver": ("_bindings.cydriver",), "nvrtc": ("_bindings.cynvrtc",),
                         "runtime": ("_bindings.cyruntime", "_bindings.cyruntime_ptds")},
             "private_aliases": ("runtime",), "ptds_any_value": True,
             "returns_none": ("cuFileRead", "cuFileWrite", "cuFileUseCount"), "signed32": ("defines",),
             "buffer_error": "buf must be either a Python int representing the pointer address to a valid "
                             "buffer, or a 1D contiguous {adj}buffer, of size bytes"},
    # its cudla module alone makes enum.IntEnum classes
    "13.5": {"private": {**_internal_layers("driver", "nvrtc", "nvjitlink", "nvvm", "nvfatbin", "cufile", "nvml",
                                             "cudla"),
                         "runtime": ("_internal.runtime", "_internal.runtime_ptds")},
             "fast_enum": True, "hidden_fields": {"driver": _RESERVED, "runtime": _RESERVED},
             "int_enum_libs": ("cudla",), "none_is_null": True, "returns_none": ("cuFileUseCount",),
             "float_address": True, "signed32": ("enums",), "zeroed_structs": ("cudaKernelNodeParamsV2",),
             "buffer_error": "buf must be None, a Python int representing the pointer address to a valid "
                             "buffer, or a contiguous {adj}buffer (a ctypes object, NumPy array, bytes, ...), "
                             "of size {size}"},
}
# `returns_none`: struct-style functions that NVIDIA's package of the release makes return None
# where the C function returns a value (cuFile's use count; 13.0.3's read and write too).
# `buffer_error`: the message of the ValueError with which the twin's one buffer helper refuses any
# buffer argument of nvJitLink, NVVM and nvFatbin ({adj}: "writable " for a buffer the library
# fills; {size}: the size it was given, -1 for those).
# `none_is_null`: in the snake_case and struct-style modules, None given for a buffer (the data
# nvJitLink or NVVM reads, a buffer nvJitLink or nvFatbin fills) is NULL, which the library then
# reports (nvJitLinkError ERROR_NULL_INPUT, nvvmError ERROR_INVALID_INPUT); 13.0.3 refuses None
# there with ValueError.  The int 0 is NULL in every release.

# Functions whose library crashes on a NULL option (an item 0 of an options list): function -> the
# releases whose library does (nvJitLink 13.5 reports ERROR_NULL_INPUT; libNVVM and nvFatbin
# report theirs).  Ours refuses it there (ValueError), where NVIDIA's package passes it on.
NULL_OPTION_CRASHES = {"nvJitLinkCreate": ("12.9", "13.0")}

# Entry points whose library crashes (a segfault) when the buffer it fills is NULL: ours refuses
# None and 0 there (ValueError), where NVIDIA's package passes NULL.  libNVVM 13.0 crashes on a
# fresh, a compiled and a failed program alike (docs/reliability.md).
NULL_CRASHES = {
    "nvvmGetProgramLog": "libNVVM writes the log through the pointer without checking it",
    "nvvmGetCompiledResult": "libNVVM writes the result through the pointer without checking it",
}

# Fields that stay Python attributes although TWIN_STYLE's hidden_fields names them: the bytes of
# an IPC handle or an exported pool pointer are what a program sends to another process, and the
# clients read and write them as `.reserved` (numba-cuda's IPC, LMCache, Triton's client; the two
# latter had to change when NVIDIA's 13.4 hid them).  A departure from NVIDIA's 12.9.10 and
# 13.5.0, listed in tests/conformance/departures.py.
SHOWN_FIELDS = {
    ("CUipcMemHandle_st", "reserved"), ("CUipcEventHandle_st", "reserved"),
    ("cudaIpcMemHandle_st", "reserved"), ("cudaIpcEventHandle_st", "reserved"),
    ("CUmemPoolPtrExportData_st", "reserved"), ("cudaMemPoolPtrExportData", "reserved"),
    ("cudaMemFabricHandle_st", "reserved"),
}

# Pointer fields that are addresses (an int; a buffer or struct gives its address), not lists, as
# NVIDIA's package has them: arrays whose count field is shared with other arrays, so a list set
# alone could not say how many items the C side reads: (struct, field) -> reason.
ADDRESS_FIELDS = {
    ("CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st", "sizes"): "one size per copy: counted by `count`, with dsts and srcs",
    ("CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st", "attrsIdxs"): "one index per attribute: counted by numAttrs, with attrs",
    ("cudaMemcpyBatchNodeParams", "sizes"): "one size per copy: counted by `count`, with dsts and srcs",
    ("cudaMemcpyBatchNodeParams", "attrsIdxs"): "one index per attribute: counted by numAttrs, with attrs",
}

# List fields that share one count field and are set together, by a method `set_<a>_<b>(a, b)`
# that sets the count too (each alone refuses, AttributeError), as NVIDIA's package has it:
# struct -> the fields, in order.
COUNTED_TOGETHER = {
    "CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st": ("dsts", "srcs"),   # a copy from each src to its dst
}

# List fields whose count field is set to the list's length when the list is set, as NVIDIA's
# package does for these: (struct, field).
SETS_COUNT = {
    ("CUDA_MEMCPY_BATCH_NODE_PARAMS_V1_st", "attrs"),   # numAttrs
    ("cudaMemcpyBatchNodeParams", "attrs"),             # numAttrs
}

# C declarations that NVIDIA's package of a release binds although the pinned headers do not
# declare them (or only in their internal section), read after the library's headers by the same
# parser: release ("*": every release) -> library -> [(C text, Python wrapper?, reason)]; an entry
# that declares a type (a typedef) is also written into the .pxd's C prelude (only the driver's
# .pxd has one), so that C knows the type and Cython its C name.  Each
# entry point is resolved when first called, so a library that lacks it raises the not-found
# error (the driver: CUDA_ERROR_NOT_FOUND).
EXTRA_DECLARATIONS = {
    "*": {
        "driver": [
            ("#ifndef __cudaProfiler_h__  /* the header's own guard: where a client has it, it says the same */\n"
             "typedef enum CUoutput_mode_enum { CU_OUT_KEY_VALUE_PAIR = 0x00, CU_OUT_CSV = 0x01 } CUoutput_mode;\n"
             "#endif\n"
             "CUresult cuProfilerInitialize(const char *configFile, const char *outputFile, CUoutput_mode outputMode);",
             False, "cudaProfiler.h, which the wheels do not ship, declares them; cudaProfilerTypedefs.h "
                    "gives the entry point's ABI version; NVIDIA's package has the enum and the C-API function"),
        ],
    },
    "12.9": {
        # NVIDIA's 12.9.x binds the nvJitLink and NVVM API of the CUDA 13 headers
        "nvjitlink": [
            ("nvJitLinkResult nvJitLinkGetLinkedLTOIRSize(nvJitLinkHandle handle, size_t *size);\n"
             "nvJitLinkResult nvJitLinkGetLinkedLTOIR(nvJitLinkHandle handle, void *ltoir);",
             True, "the linked LTO-IR (CUDA 13's nvJitLink, which NVIDIA's 12.9.x binds)"),
        ],
        "nvvm": [
            ("nvvmResult nvvmLLVMVersion(const char *arch, int *major);",
             True, "the LLVM version of an architecture (CUDA 13's libNVVM, which NVIDIA's 12.9.x binds)"),
        ],
        "nvfatbin": [
            ("nvFatbinResult nvFatbinAddTileIR(nvFatbinHandle handle, const void *code, size_t size, "
             "const char *identifier, const char *optionsCmdLine);",
             True, "Tile IR entries (CUDA 13's nvFatbin, which NVIDIA's 12.9.x binds)"),
        ],
    },
    "13.5": {
        "driver": [
            ("CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);\n"
             "CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, "
             "unsigned int flags, CUdevice dev);\n"
             "CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, "
             "cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, "
             "size_t *numDependencies_out);",
             False, "earlier entry points that the 13.5 headers declare only for the driver's own build; "
                    "NVIDIA's 13.5.0 keeps them in its C-API"),
        ],
    },
}

# Enum members that NVIDIA's package of a release has beyond the release's headers: release ->
# enum -> [(member, value)], with the reason.
EXTRA_ENUM_MEMBERS = {
    "12.9": {
        # CUDA 13's codes (NVIDIA's 12.9.x binds its nvJitLink.h; the 12.9 header's other new
        # codes are read with NEW_ERROR_CODES defined: libs.py)
        "nvJitLinkResult": [("NVJITLINK_ERROR_UNRECOGNIZED_ARCH", 16), ("NVJITLINK_ERROR_UNSUPPORTED_ARCH", 17),
                            ("NVJITLINK_ERROR_LTO_NOT_ENABLED", 18)],
    },
}


def extra_declarations(release, lib):
    """The EXTRA_DECLARATIONS entries of a library for one release."""
    return EXTRA_DECLARATIONS.get("*", {}).get(lib, []) + EXTRA_DECLARATIONS.get(release, {}).get(lib, [])

# The modules that give a library's entry-point addresses (`_inspect_function_pointers()`,
# `_inspect_function_pointer(name)`), at the paths where libraries probe them (numba-cuda asks
# cuda.bindings._internal.nvjitlink): in every release, whether or not NVIDIA's package of that
# release has a C layer there (a release's C layer at that path gives them too).
ADDRESS_MODULES = {"driver": "_bindings.cydriver", "runtime": "_bindings.cyruntime", "nvrtc": "_bindings.cynvrtc",
                   "nvjitlink": "_internal.nvjitlink", "nvvm": "_internal.nvvm", "cufile": "_internal.cufile",
                   "nvfatbin": "_internal.nvfatbin", "nvml": "_internal.nvml", "cudla": "_internal.cudla"}

# Parameters that NVIDIA's private C layers declare with another spelling of the type than its
# cy<lib> module does, which the C-API strings show: (function, parameter) -> the layer's type.
PRIVATE_PARAM_TYPES = {
    # the layers say `cudaGraphicsResource_t *`; cyruntime (and the header) `struct cudaGraphicsResource **`
    ("cudaGraphicsEGLRegisterImage", "pCudaResource"): "cudaGraphicsResource_t*",
}

# Functions of NVIDIA's private layers that no header declares, written by hand in the .pxi
# named, which the library's legacy layer includes: the conversions between the runtime's and the
# driver's EGL frame (`getDriverEglFrame`, `getRuntimeEglFrame`), which NVIDIA's runtime layer
# exports.
PRIVATE_HELPERS = {"runtime": ("_egl_frames.pxi", (
    "cudaError_t getDriverEglFrame(cydriver.CUeglFrame* cuEglFrame, cudaEglFrame eglFrame)",
    "cudaError_t getRuntimeEglFrame(cudaEglFrame* eglFrame, cydriver.CUeglFrame cueglFrame)"))}

# Outputs declared as a pointer to one number that the library writes as an array of this many
# (the header says so in words: "pBorderColor[0] holds 'R' ... pBorderColor[3] holds 'A'"): the
# tuple style gives the call room for all of them and returns the first, as NVIDIA's returns one
# float (NVIDIA's gives room for one, and the driver writes past it on the stack); the _v2 module
# returns them all as a list, as NVIDIA's _v2 does (V2_SIGNATURES "fixed_arrays").
WRITTEN_ITEMS = {("cuTexRefGetBorderColor", "pBorderColor"): 4}

# cuda.bindings._v2 (the driver's and NVRTC's second API): how its names are made where they are
# not the struct-style modules' (names.py, docs/library-modules.md), each rule with its reason.
# The names are NVIDIA's, so each rule is what makes ours come out as NVIDIA's package spells them.
V2_NAMES = {
    # A function is named after the C symbol it calls (cuMemAlloc_v2 -> mem_alloc_v2), without the
    # prefix, in snake_case (names.snake_case) after these rewrites of the C name:
    "function_rewrites": (
        # a copy's direction is one word (cuMemcpyDtoH_v2 -> memcpy_dtoh_v2, cuMemcpyAtoA_v2)
        (r"([A-Z])to([A-Z])", lambda m: m.group(1) + "to" + m.group(2).lower()),
        # 1D, 2D and 3D are a word of their own after a word (cuArray3DCreate -> array_3d_create)
        (r"(?<=[a-z])([123])D(?=[A-Z_]|$)", r"_\1d"),
        # and after a D (cuMemsetD2D8 -> memset_d2d8)
        (r"D2D(\d+)", r"D2d\1"),
        # NVIDIA's spellings of a few words (ctx_reset_persisting_l2cache,
        # occupancy_available_dynamic_smem_per_block, device_get_p2p_attribute, get_optix_ir)
        (r"L2Cache", "L2cache"), (r"SMem", "Smem"), (r"P2P", "P2p"), (r"OptiXIR", "OptixIR"),
    ),
    # functions that the rules above name otherwise
    "functions": {"cuTexRefSetAddress2D_v3": "tex_ref_set_address2d_v3"},
    # Python-level functions it has besides, each another name of one it makes: cuda.h #defines
    # cuGraphInstantiate as cuGraphInstantiateWithFlags, and cuGraphGetEdges,
    # cuGraphNodeGetDependencies and cuGraphNodeGetDependentNodes as their _v2, and NVIDIA's module
    # has both names of each
    "aliases": {"graph_instantiate": "graph_instantiate_with_flags", "graph_get_edges": "graph_get_edges_v2",
                "graph_node_get_dependencies": "graph_node_get_dependencies_v2",
                "graph_node_get_dependent_nodes": "graph_node_get_dependent_nodes_v2"},
    # functions NVIDIA's _v2 leaves out: the OpenGL interop that cudaGL.h marks deprecated
    "left_out": ("cuGLCtxCreate", "cuGLInit", "cuGLMapBufferObject", "cuGLMapBufferObjectAsync",
                 "cuGLRegisterBufferObject", "cuGLSetBufferObjectMapFlags", "cuGLUnmapBufferObject",
                 "cuGLUnmapBufferObjectAsync", "cuGLUnregisterBufferObject"),
    # A class (struct or enum) is its C name without the prefix (CUDA_, CU, nvrtc) and the _st,
    # _enum and _t endings, in CamelCase: a name in capitals a word per `_`-separated part
    # (CUDA_ARRAY_DESCRIPTOR_v2 -> ArrayDescriptor_v2), any other its parts with the first letter
    # raised (CUarray_format -> ArrayFormat); a version ending (_v2) stays. These words are NVIDIA's
    # own capitalisation of parts that the rule would give otherwise:
    "class_words": {"MEMCPY": "MemCpy", "memcpy": "MemCpy", "MEMSET": "MemSet", "DEVPROP": "DevProp", "devprop": "DevProp",
                    "sharedconfig": "SharedConfig", "memorytype": "MemoryType", "computemode": "ComputeMode",
                    "resourcetype": "ResourceType", "L2promotion": "L2Promotion", "OOBfill": "OOBFill",
                    "GLmap": "GLMap", "P2P": "P2P"},
    # classes that the rules above name otherwise
    "classes": {"cl_event_flags": "NvclEventFlags",
                "CUDA_MEMCPY_BATCH_NODE_PARAMS_V1": "MemcpyBatchNodeParamsV1",
                "CUmemcpy3DOperand_v1": "MemCpy3dOperand_v1"},
    # enum members NVIDIA's package gives a `_` (CU_GRAPH_COND_TYPE_IF -> IF_; its WHILE stays)
    "keyword_members": ("IF",),
}

# cuda.bindings._v2's attribute-typed values (the value parameters of ATTRIBUTE_PARAMS and
# ATTRIBUTE_LISTS): what NVIDIA's 13.5.0 _v2 returns for each attribute, measured through a stand-in
# driver that writes known bytes (tests/test_v2.py, test_attribute_values_as_nvidias).  The C type
# of a member is the one its doxygen states ("(value type = cuuint64_t)" of the memory pool and
# graph memory attributes, "Returns in \p *data a boolean" / "an integer"), else ATTRIBUTE_TYPES'
# (the header's text of the getter, read by hand); `kinds` says how a C type comes back
# (_v2_common.pxi, _attr_result: "i"/"I" 4-byte int, "q"/"Q" 8-byte, "?" 1-byte bool, "?I" a 4-byte
# int as a bool, "s<N>" text in N bytes, "i[]" a list of ints filling the caller's data size; a
# struct: its record class); `enum_kinds` and `members` where NVIDIA's reads otherwise.  A member
# none of these types is refused with NVIDIA's TypeError ("Unsupported pointer attribute: 0").
V2_ATTRIBUTES = {
    # the words of that TypeError, by attribute enum ("Unsupported <words>: <value>"); an exported
    # memory handle's type types the handle as an attribute types its value
    # (cuMemExportToShareableHandle: a file descriptor an int, a fabric handle a struct)
    "what": {"CUpointer_attribute": "pointer attribute", "CUmemPool_attribute": "memory pool attribute",
             "CUgraphMem_attribute": "graph memory attribute", "CUmem_range_attribute": "memory range attribute",
             "CUcoredumpSettings": "coredump attribute", "CUmemAllocationHandleType": "memory handle type"},
    # a C type's kind: signed ints, enums and handles as NVIDIA's returns them (a handle and a host
    # pointer as an intptr_t, a device pointer and a size unsigned)
    "kinds": {"int": "i", "unsigned int": "I", "cuuint64_t": "Q", "unsigned long long": "Q", "size_t": "Q",
              "CUdeviceptr": "Q", "void*": "q", "bool": "?", "char[1024]": "s1024", "int[]": "i[]",
              "enum": "i", "handle": "q"},
    # the pointer attributes' booleans are 4 bytes (the driver's unsigned int), read as a bool
    "enum_kinds": {"CUpointer_attribute": {"bool": "?I"}},
    "members": {
        # 4 bytes, unsigned (ATTRIBUTE_TYPES gives the tuple style 8 bytes of storage)
        "CU_POINTER_ATTRIBUTE_ACCESS_FLAGS": "I",
        # an address of the device's space: unsigned, as a device pointer
        "CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR": "Q",
        # an unsigned int, its flags (CUCoredumpGenerationFlags) a bitmask
        "CU_COREDUMP_GENERATION_FLAGS": "I",
    },
}


def v2_attribute_kind(enum, member, doc, is_enum, is_handle, record):
    """The _v2 kind of attribute `member` of `enum` (V2_ATTRIBUTES), from its doxygen `doc` where it
    names a type, else ATTRIBUTE_TYPES; is_enum / is_handle / record(C type) say what a C type is
    (record: its (slot, class) or None); None where nothing types it."""
    import re
    if member in V2_ATTRIBUTES["members"]:
        return V2_ATTRIBUTES["members"][member]
    m = re.search(r"\(value type = (\w+)\)", doc or "")
    ctype = m.group(1) if m else "bool" if re.search(r"\*data a boolean", doc or "") else \
        "int" if re.search(r"\*data an integer", doc or "") else None
    table = ATTRIBUTE_TYPES.get(enum, {})
    ctype = ctype or table.get(member, table.get("*"))
    if ctype is None:
        return None
    kinds = {**V2_ATTRIBUTES["kinds"], **V2_ATTRIBUTES["enum_kinds"].get(enum, {})}
    if ctype in kinds:
        return kinds[ctype]
    if record(ctype):
        return record(ctype)
    return kinds["enum"] if is_enum(ctype) else kinds["handle"] if is_handle(ctype) else None


# cuda.bindings._v2's functions whose parameters NVIDIA's package types otherwise than emit_v2's
# rules (_Sig) say, each group with its reason.
V2_SIGNATURES = {
    # inputs it takes as an int address only: void* ones that are data the library keeps and hands
    # back (a callback's user data), addresses it stores or compares, opaque OS handles; and the
    # arrays of numbers whose address it takes (option arrays, the copy and prefetch batches'
    # address and size arrays, the tensor map's dimensions), where others take a list too
    "address": {
        ("cuModuleLoadDataEx", "options"), ("cuLinkCreate", "options"), ("cuLinkAddData", "options"),
        ("cuLinkAddFile", "options"), ("cuLibraryLoadData", "jitOptions"), ("cuLibraryLoadData", "libraryOptions"),
        ("cuLibraryLoadFromFile", "jitOptions"), ("cuLibraryLoadFromFile", "libraryOptions"),
        ("cuMemcpyBatchAsync", "dsts"), ("cuMemcpyBatchAsync", "srcs"), ("cuMemcpyBatchAsync", "sizes"),
        ("cuMemcpyBatchAsync", "attrsIdxs"), ("cuFabricCpyBatchAsync", "opList"),
        ("cuMemPrefetchBatchAsync", "dptrs"), ("cuMemPrefetchBatchAsync", "sizes"),
        ("cuMemPrefetchBatchAsync", "prefetchLocIdxs"), ("cuMemDiscardBatchAsync", "dptrs"),
        ("cuMemDiscardBatchAsync", "sizes"), ("cuMemDiscardAndPrefetchBatchAsync", "dptrs"),
        ("cuMemDiscardAndPrefetchBatchAsync", "sizes"), ("cuMemDiscardAndPrefetchBatchAsync", "prefetchLocIdxs"),
        ("cuTexRefSetBorderColor", "pBorderColor"), ("cuDeviceGetP2PAtomicCapabilities", "operations"),
        *((f, a) for f in ("cuTensorMapEncodeTiled", "cuTensorMapEncodeIm2col", "cuTensorMapEncodeIm2colWide")
          for a in ("globalDim", "globalStrides", "elementStrides")),
        ("cuTensorMapEncodeTiled", "boxDim"), ("cuTensorMapEncodeIm2col", "pixelBoxLowerCorner"),
        ("cuTensorMapEncodeIm2col", "pixelBoxUpperCorner"),
        ("cuDeviceGetNvSciSyncAttributes", "nvSciSyncAttrList"), ("cuLinkAddData", "data"),
        ("cuMemHostGetDevicePointer", "p"), ("cuMemHostGetFlags", "p"),
        ("cuDeviceRegisterAsyncNotification", "userData"), ("cuMemImportFromShareableHandle", "osHandle"),
        ("cuMemRetainAllocationHandle", "addr"), ("cuMemPoolImportFromShareableHandle", "handle"),
        ("cuLogicalEndpointBindAddr", "ptr"), ("cuStreamAddCallback", "userData"),
        ("cuStreamBeginRecaptureToGraph", "userData"), ("cuLaunchHostFunc", "userData"),
        ("cuLaunchHostFunc_v2", "userData"), ("cuParamSetv", "ptr"),
        ("cuTensorMapEncodeTiled", "globalAddress"), ("cuTensorMapEncodeIm2col", "globalAddress"),
        ("cuTensorMapEncodeIm2colWide", "globalAddress"), ("cuTensorMapReplaceAddress", "globalAddress"),
        ("cuCoredumpRegisterStartCallback", "userData"), ("cuCoredumpRegisterCompleteCallback", "userData"),
        ("cuLogsRegisterCallback", "userData"), ("cuVDPAUGetDevice", "vdpGetProcAddress"),
        ("cuVDPAUCtxCreate", "vdpGetProcAddress"),
        # the EGL frame given by value or by pointer, as an address of one
        ("cuEGLStreamProducerPresentFrame", "eglframe"), ("cuEGLStreamProducerReturnFrame", "eglframe"),
        ("nvrtcSetFlowCallback", "callback"), ("nvrtcSetFlowCallback", "payload"),
    },
    # C strings it takes as a Python str ("str": TypeError `<name> must be a Python str`
    # otherwise), or as bytes or None ("bytes_or_none"), or as bytes only ("bytes": Cython's
    # conversion, a TypeError for None too), not as a buffer as the driver's; "path":
    # a str, which ours also takes as the driver's C strings are taken (bytes, a buffer, an int
    # address, None: _v2_common.pxi, _path_arg)
    "text": {("nvrtcAddNameExpression", "name_expression"): "str", ("nvrtcGetLoweredName", "name_expression"): "str",
             ("nvrtcCreateProgram", "name"): "bytes_or_none", ("cuLogsDumpToFile", "pathToFile"): "bytes",
             ("nvrtcInstallBundledHeaders", "installPath"): "path", ("nvrtcRemoveBundledHeaders", "installPath"): "path"},
    # parameters it types `bytes` (Cython's TypeError for another type)
    "bytes": {("nvrtcCreateProgram", "src")},
    # C strings it returns decoded (str), where the others come back as bytes
    "str_results": {"cuGetErrorString", "cuGetErrorName"},
    # parameters it gives another C type than the header's (EGLint as unsigned int)
    "types": {("cuEGLStreamProducerConnect", "width"): "unsigned int",
              ("cuEGLStreamProducerConnect", "height"): "unsigned int"},
    # pointer parameters the headers' text calls inputs whose value the call writes: outputs, returned
    "outputs": {("cuEGLStreamConsumerAcquireFrame", "pCudaResource"), ("cuMemGetLocationInfo", "location_out")},
    # outputs it takes as an int address to write to (the caller's struct; cuLogsDumpToMemory's
    # iterator, buffer and size, which the driver reads and updates), not returned
    "output_addresses": {("cuGraphicsResourceGetMappedEglFrame", "eglFrame"),
                         ("cuTensorMapSetAllocationClass", "outAllocClass"), ("cuLogsDumpToMemory", "iterator"),
                         ("cuLogsDumpToMemory", "buffer"), ("cuLogsDumpToMemory", "size")},
    # a value it takes as an int, or None for NULL, and returns as the call updated it (0 for None)
    "optional_inout": {("cuLogsDumpToFile", "iterator")},
    # pointer outputs to an image the library keeps, of the size the output named gives: returned as
    # bytes of that many (b"" for NULL); the size is not returned
    "sized_results": {("cuLinkComplete", "cubinOut"): "sizeOut"},
    # outputs that are C arrays of this many numbers (WRITTEN_ITEMS), returned as a list
    "fixed_arrays": WRITTEN_ITEMS,
    # output arrays it gives this capacity (the array's count parameter, which it does not take),
    # returned as a numpy array of as many as the output named says (ours: no more than the
    # capacity; NVIDIA's reads past its array for a larger count)
    "capacities": {("cuGLGetDevices", "pCudaDevices"): (64, "pCudaDeviceCount")},
    # entry points that the headers declare only in their internal section (EXTRA_DECLARATIONS), which
    # the tuple style leaves out and NVIDIA's _v2 makes
    "internal": {"cuStreamGetCaptureInfo_v2"},
    # functions whose arrays' length another function gives, which NVIDIA's package asks for
    # before it fills arrays of that length (it takes no count): the header names the count
    # function, and does not say that the call gives the length for NULL arrays (emit_v2._filled_counts)
    "count_calls": {"cuDeviceGetCliqueInfo": "cuDeviceGetCliqueCount", "cuModuleEnumerateFunctions": "cuModuleGetFunctionCount",
                    "cuLibraryEnumerateKernels": "cuLibraryGetKernelCount"},
    # functions whose shape this generator does not make yet: left out of the module, rather than
    # made with a signature unlike NVIDIA's (docs/v2.md lists them; none at present)
    "not_yet": set(),
    # functions whose arrays NVIDIA's package takes as contiguous buffers of items of the C size
    # (ValueError "<name> must hold items of N bytes", a struct array also as bytes), their counts
    # the buffers' lengths (arrays of one count must agree; the arrays of a count that may be
    # absent are None together), and an array the call fills of that count returned as a numpy
    # array: function -> (the name of a second function made so, beside the one of its C name
    # that takes addresses, or None: the function itself, the C arrays that may be None)
    "buffers": {"cuMemcpyBatchAsync": ("memcpy_batch_async", {"attrs", "attrsIdxs"}),
                "cuDeviceGetHostAtomicCapabilities": (None, set())},
    # array outputs NVIDIA's package types as one value, the array's first item (the C API fills
    # `count` of them: ours gives the call room for all, returns the first)
    "first_item": {("cuDeviceGetP2PAtomicCapabilities", "capabilities")},
    # inputs NVIDIA's package also returns (the NvSciSync attribute list the call filled, as its int)
    "returned_inputs": {("cuDeviceGetNvSciSyncAttributes", "nvSciSyncAttrList")},
}

"""Behaviours of the reference package that only a real driver shows (skipped without a GPU):
attribute outputs sized by the caller or per attribute, list-valued attribute queries, graph
queries with an omitted count, pointer fields the driver fills, entry-point addresses."""
import ctypes

import pytest

from cuda.bindings._version import CUDA_MAJOR

from _support import ok

pytestmark = pytest.mark.gpu

SIZE = 1 << 20


@pytest.fixture
def managed(cu):
    d = cu.driver
    ptr = ok(d.cuMemAllocManaged(SIZE, d.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    yield ptr
    ok(d.cuMemFree(ptr))


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (cuMemAdvise takes a CUmemLocation); the 12.x one differs (docs/cuda-changelog.md)")
def test_mem_range_accessed_by_is_a_list_sized_by_the_data_size(cu, managed):
    d = cu.driver
    attr = d.CUmem_range_attribute
    loc = d.CUmemLocation()
    loc.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = int(cu.dev)
    ok(d.cuMemAdvise(managed, SIZE, d.CUmem_advise.CU_MEM_ADVISE_SET_ACCESSED_BY, loc))
    # 12 bytes: three device ids, the rest CU_DEVICE_INVALID (-2); this overran the stack before
    got = ok(d.cuMemRangeGetAttribute(12, attr.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, managed, SIZE))
    assert got == [int(cu.dev), -2, -2]
    many = ok(d.cuMemRangeGetAttribute(4096, attr.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, managed, SIZE))
    assert len(many) == 1024 and many[0] == int(cu.dev)
    assert ok(d.cuMemRangeGetAttribute(4, attr.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, managed, SIZE)) == 0
    values = ok(d.cuMemRangeGetAttributes([4, 8, 4], [attr.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                                       attr.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
                                                       attr.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION],
                                          3, managed, SIZE))
    assert values[0] == 0 and values[1] == [int(cu.dev), -2] and isinstance(values[2], int)
    with pytest.raises(RuntimeError):
        d.cuMemRangeGetAttributes([4], [attr.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY], 2, managed, SIZE)


def test_every_pointer_attribute_of_managed_memory(cu, managed):
    d = cu.driver
    attr = d.CUpointer_attribute
    results = {a: d.cuPointerGetAttribute(a, managed) for a in attr}
    failed = {a.name: r[0] for a, r in results.items() if r[0] != d.CUresult.CUDA_SUCCESS}
    if d.cuDriverGetVersion()[1] < 13050:    # an attribute of CUDA 13.5 that older drivers do not know
        failed.pop("CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL", None)
    # P2P tokens are for device memory only; the rest hold for managed memory
    assert set(failed) <= {"CU_POINTER_ATTRIBUTE_P2P_TOKENS", "CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE",
                           "CU_POINTER_ATTRIBUTE_MAPPING_SIZE", "CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR",
                           "CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID"}, failed
    value = {a.name: r[1] for a, r in results.items()}
    assert value["CU_POINTER_ATTRIBUTE_IS_MANAGED"] is True
    # a plain int, as in the reference package (managed memory reports the device type)
    assert type(value["CU_POINTER_ATTRIBUTE_MEMORY_TYPE"]) is int
    assert value["CU_POINTER_ATTRIBUTE_MEMORY_TYPE"] in (d.CUmemorytype.CU_MEMORYTYPE_DEVICE,
                                                         d.CUmemorytype.CU_MEMORYTYPE_UNIFIED)
    # the same address (a CUdeviceptr compares by identity, as NVIDIA's does: compare the ints)
    assert isinstance(value["CU_POINTER_ATTRIBUTE_DEVICE_POINTER"], d.CUdeviceptr)
    assert int(value["CU_POINTER_ATTRIBUTE_DEVICE_POINTER"]) == int(managed)
    assert isinstance(value["CU_POINTER_ATTRIBUTE_RANGE_START_ADDR"], d.CUdeviceptr)
    assert value["CU_POINTER_ATTRIBUTE_RANGE_SIZE"] >= SIZE
    assert isinstance(value["CU_POINTER_ATTRIBUTE_CONTEXT"], d.CUcontext)
    names = [attr.CU_POINTER_ATTRIBUTE_IS_MANAGED, attr.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
             attr.CU_POINTER_ATTRIBUTE_RANGE_SIZE, attr.CU_POINTER_ATTRIBUTE_CONTEXT]
    listed = ok(d.cuPointerGetAttributes(len(names), names, managed))
    assert listed == [True, int(cu.dev), value["CU_POINTER_ATTRIBUTE_RANGE_SIZE"],
                      value["CU_POINTER_ATTRIBUTE_CONTEXT"]]
    # not a CUDA pointer: success, with default values (the driver's documented behaviour)
    nothing = ok(d.cuPointerGetAttributes(len(names), names, 0))
    assert isinstance(nothing, list) and len(nothing) == 4 and nothing[0] is False


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (the graph edge queries return edge data); the 12.x one differs (docs/cuda-changelog.md)")
def test_graph_queries_with_the_count_omitted(cu):
    d = cu.driver
    graph = ok(d.cuGraphCreate(0))
    try:
        a = ok(d.cuGraphAddEmptyNode(graph, None, 0))
        b = ok(d.cuGraphAddEmptyNode(graph, [a], 1))
        nodes, count = ok(d.cuGraphGetNodes(graph))
        assert count == 2 and nodes == []
        nodes, count = ok(d.cuGraphGetNodes(graph, count))
        assert count == 2 and set(nodes) == {a, b}
        from_, to, data, n = ok(d.cuGraphGetEdges(graph))
        assert n == 1
        from_, to, data, n = ok(d.cuGraphGetEdges(graph, n))
        assert (from_, to) == ([a], [b])
    finally:
        ok(d.cuGraphDestroy(graph))


def test_runtime_graph_query_with_the_count_omitted(cu):
    from cuda.bindings import runtime
    graph = ok(runtime.cudaGraphCreate(0))
    try:
        ok(runtime.cudaGraphAddEmptyNode(graph, None, 0))
        nodes, count = ok(runtime.cudaGraphGetNodes(graph))
        assert (nodes, count) == ([], 1)
        nodes, count = ok(runtime.cudaGraphGetNodes(graph, 1))
        assert len(nodes) == 1 and isinstance(nodes[0], runtime.cudaGraphNode_t)
    finally:
        ok(runtime.cudaGraphDestroy(graph))


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (cuGraphAddNode takes edge data); the 12.x one differs (docs/cuda-changelog.md)")
def test_conditional_node_body_graphs_are_read_back(cu):
    d = cu.driver
    graph = ok(d.cuGraphCreate(0))
    try:
        handle = ok(d.cuGraphConditionalHandleCreate(graph, cu.ctx, 0, 0))
        params = d.CUgraphNodeParams()
        params.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
        params.conditional.handle = handle
        params.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
        params.conditional.size = 1
        params.conditional.ctx = cu.ctx
        assert [int(g) for g in params.conditional.phGraph_out] == [0]   # size NULL graphs until the driver writes them (as NVIDIA's)
        ok(d.cuGraphAddNode(graph, None, None, 0, params))
        bodies = params.conditional.phGraph_out
        assert len(bodies) == 1 and isinstance(bodies[0], d.CUgraph) and int(bodies[0]) != 0
        assert ok(d.cuGraphGetNodes(bodies[0]))[1] == 0     # an empty body graph, ours to fill
    finally:
        ok(d.cuGraphDestroy(graph))


def test_inspect_function_pointer_gives_the_resolved_addresses(cu):
    from cuda.bindings._bindings import cydriver, cynvrtc
    from cuda.bindings._internal import nvjitlink
    table = cydriver._inspect_function_pointers()
    assert table["__cuInit"] == cydriver._inspect_function_pointer("__cuInit") != 0
    assert table["__cuMemAlloc_v2"] != 0 and table["__cuCtxCreate_v4"] != 0
    assert cynvrtc._inspect_function_pointer("__nvrtcVersion") != 0
    assert nvjitlink._inspect_function_pointer("__nvJitLinkVersion") != 0
    with pytest.raises(KeyError):
        cydriver._inspect_function_pointer("__cuNoSuchFunction")


def test_surface_object_made_with_ptr_is_the_address_a_kernel_writes_through(cu, nvrtc_compile):
    # `T(_ptr=addr)` views addr: passed as c_void_p, the kernel gets addr and writes there
    from cuda.bindings import runtime
    d = cu.driver
    src = 'extern "C" __global__ void put(unsigned long long *p) { *p = 0x5eed; }'
    mod = ok(d.cuModuleLoadData(nvrtc_compile(src, cu.arch, fmt="cubin")))
    try:
        fn = ok(d.cuModuleGetFunction(mod, b"put"))
        cell = ok(d.cuMemAllocManaged(8, d.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
        try:
            obj = runtime.cudaSurfaceObject_t(_ptr=int(cell))
            assert obj.getPtr() == int(cell)
            ok(d.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((obj,), (ctypes.c_void_p,)), 0))
            ok(d.cuCtxSynchronize())
            assert int(obj) == 0x5eed
        finally:
            ok(d.cuMemFree(cell))
    finally:
        ok(d.cuModuleUnload(mod))


@pytest.mark.skipif(CUDA_MAJOR < 13, reason="CUDA 13's signature (cuStreamGetCaptureInfo returns edge data); the 12.x one differs (docs/cuda-changelog.md)")
def test_capture_info_lists_the_current_dependencies(cu):
    d = cu.driver
    stream = ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING))
    buf = ok(d.cuMemAlloc(256))
    try:
        ok(d.cuStreamBeginCapture(stream, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED))
        ok(d.cuMemsetD8Async(buf, 1, 256, stream))
        status, _, graph, deps, edges, n = ok(d.cuStreamGetCaptureInfo(stream))
        assert status == d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
        assert n == 1 and len(deps) == 1 and isinstance(deps[0], d.CUgraphNode) and int(deps[0]) != 0
        assert len(edges) in (0, 1) and all(isinstance(e, d.CUgraphEdgeData) for e in edges)
        ok(d.cuGraphDestroy(ok(d.cuStreamEndCapture(stream))))
    finally:
        ok(d.cuMemFree(buf))
        ok(d.cuStreamDestroy(stream))

"""Small helpers that work across the driver and runtime modules."""


def get_cuda_native_handle(obj):
    """The C value of a driver or runtime handle object (CUstream, cudaStream_t, CUevent,
    cudaEvent_t, CUgraph, ...) as an int: the address a C library would receive."""
    from cuda.bindings._base import _Handle
    if not isinstance(obj, _Handle):
        raise TypeError(f"expected a cuda.bindings handle object, not {type(obj).__name__}")
    return int(obj)

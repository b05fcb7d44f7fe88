"""The driver functions whose parameters changed from CUDA 12 to CUDA 13, in their CUDA 13 form on
every build of cuda.bindings.

CUDA 13 gave four functions the parameters that CUDA 12 had under a versioned name:

  CUDA 13 name          parameters                                                CUDA 12 name
  cuCtxCreate           (ctxCreateParams, flags, dev)                             cuCtxCreate_v4
  cuMemPrefetchAsync    (devPtr, count, location, flags, hStream)                 cuMemPrefetchAsync_v2
  cuMemAdvise           (devPtr, count, advice, location)                         cuMemAdvise_v2
  cuGraphAddNode        (hGraph, dependencies, dependencyData, numDependencies,   cuGraphAddNode_v2
                         nodeParams)

(CUDA 12's plain names take the older parameters: a device instead of a CUmemLocation, no
CUctxCreateParams, no edge data.) The examples are written against CUDA 13; on a CUDA 12 build
`cu13.cuMemAdvise` is the driver's cuMemAdvise_v2, which the CUDA 13 driver also exports.

The names are looked up at import with getattr, so that a type checker reading the stubs of
either release sees the CUDA 13 signature declared here, not the other release's.
"""
from collections.abc import Callable

import cuda.bindings
from cuda.bindings import driver

#: the CUDA major release this build of cuda.bindings was generated from (its __cuda_version__;
#: a package without one has the CUDA release as its own version)
CUDA_MAJOR = int(str(getattr(cuda.bindings, "__cuda_version__", None)
                     or getattr(cuda.bindings, "__version__")).split(".")[0])

_Stream = driver.CUstream | int | None

cuCtxCreate: Callable[[driver.CUctxCreateParams | None, int, driver.CUdevice | int | None],
                      tuple[driver.CUresult, driver.CUcontext | None]] = getattr(
    driver, "cuCtxCreate" if CUDA_MAJOR >= 13 else "cuCtxCreate_v4")

cuMemPrefetchAsync: Callable[[driver.CUdeviceptr | int | None, int, driver.CUmemLocation, int, _Stream],
                             tuple[driver.CUresult]] = getattr(
    driver, "cuMemPrefetchAsync" if CUDA_MAJOR >= 13 else "cuMemPrefetchAsync_v2")

cuMemAdvise: Callable[[driver.CUdeviceptr | int | None, int, driver.CUmem_advise, driver.CUmemLocation],
                      tuple[driver.CUresult]] = getattr(
    driver, "cuMemAdvise" if CUDA_MAJOR >= 13 else "cuMemAdvise_v2")

cuGraphAddNode: Callable[[driver.CUgraph | int | None, list[driver.CUgraphNode] | None,
                          list[driver.CUgraphEdgeData] | None, int, driver.CUgraphNodeParams],
                         tuple[driver.CUresult, driver.CUgraphNode | None]] = getattr(
    driver, "cuGraphAddNode" if CUDA_MAJOR >= 13 else "cuGraphAddNode_v2")

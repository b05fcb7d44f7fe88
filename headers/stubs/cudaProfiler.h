/* Stand-in for the CUDA toolkit's cudaProfiler.h, which the pinned header wheels do not ship:
   the output-mode enum and the driver's profiler entry points, as the toolkit header declares
   them. Code compiled against NVIDIA's cuda/bindings/cydriver.pxd includes this header (for
   CUoutput_mode); the bindings' own build declares the same things itself. */
#ifndef __cudaProfiler_h__
#define __cudaProfiler_h__

#include <cuda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum CUoutput_mode_enum {
    CU_OUT_KEY_VALUE_PAIR = 0x00,
    CU_OUT_CSV = 0x01
} CUoutput_mode;

CUresult CUDAAPI cuProfilerInitialize(const char *configFile, const char *outputFile, CUoutput_mode outputMode);
CUresult CUDAAPI cuProfilerStart(void);
CUresult CUDAAPI cuProfilerStop(void);

#ifdef __cplusplus
}
#endif

#endif

/* A no-op libcuda.so.1 for measuring a binding's own per-call cost: every entry point that
 * benchmarks/calls.py uses returns CUDA_SUCCESS at once (outputs get fixed dummy values), so a
 * call's time is the binding's argument conversion, GIL handling and result building, with no
 * driver work and none of the driver's effects on the caches.  benchmarks/run.sh builds it and
 * runs calls.py against it with each package (LD_LIBRARY_PATH), beside the real-driver rounds.
 *
 *   cc -O2 -shared -fPIC -o libcuda.so.1 stub_driver.c -ldl
 * Not a driver: nothing is launched or copied.  Both entry-point lookups work: dlsym of the C
 * names (plain and _v2) and cuGetProcAddress_v2 (which NVIDIA's package uses). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define OK return 0
#define HANDLE ((void *)0x1000)
#define V2(name) __attribute__((alias(#name))) 
static const char *kMsg = "stub: no error";

CUresult cuInit(unsigned int f) { OK; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; OK; }
CUresult cuDeviceGet(int *d, int o) { *d = 0; OK; }
CUresult cuDeviceGetCount(int *n) { *n = 1; OK; }
CUresult cuDeviceGetName(char *name, int len, int dev) { if (len > 0) strncpy(name, "stub", (size_t)len); OK; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { *v = 132; OK; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { *c = HANDLE; OK; }
CUresult cuCtxSetCurrent(void *c) { OK; }
CUresult cuCtxGetCurrent(void **c) { *c = HANDLE; OK; }
CUresult cuCtxGetDevice(int *d) { *d = 0; OK; }
CUresult cuGetErrorString(int e, const char **s) { *s = kMsg; OK; }
CUresult cuGetErrorName(int e, const char **s) { *s = kMsg; OK; }
CUresult cuModuleLoadData(void **m, const void *image) { *m = HANDLE; OK; }
CUresult cuModuleGetFunction(void **f, void *m, const char *name) { *f = HANDLE; OK; }
CUresult cuStreamCreate(void **s, unsigned int flags) { *s = HANDLE; OK; }
CUresult cuStreamDestroy_v2(void *s) { OK; }
CUresult cuStreamDestroy(void *s) V2(cuStreamDestroy_v2);
CUresult cuStreamQuery(void *s) { OK; }
CUresult cuStreamSynchronize(void *s) { OK; }
CUresult cuEventCreate(void **e, unsigned int flags) { *e = HANDLE; OK; }
CUresult cuEventDestroy_v2(void *e) { OK; }
CUresult cuEventDestroy(void *e) V2(cuEventDestroy_v2);
CUresult cuEventRecord(void *e, void *s) { OK; }
CUresult cuEventQuery(void *e) { OK; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = 0x100000; OK; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) V2(cuMemAlloc_v2);
CUresult cuMemFree_v2(CUdeviceptr p) { OK; }
CUresult cuMemFree(CUdeviceptr p) V2(cuMemFree_v2);
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { OK; }
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *h, size_t n) V2(cuMemcpyHtoD_v2);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, void *s) { OK; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, void *s) V2(cuMemcpyHtoDAsync_v2);
CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) { *(int *)data = 2; OK; }
CUresult cuModuleUnload(void *m) { OK; }
CUresult cuDevicePrimaryCtxRelease_v2(int d) { OK; }
CUresult cuDevicePrimaryCtxRelease(int d) V2(cuDevicePrimaryCtxRelease_v2);
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, void *s, void **params, void **extra) { OK; }

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status) {
    static const char *suffixes[] = {"_v2", ""};
    static void *self;      /* this library, also where it was loaded RTLD_LOCAL (behind drvprobe.c) */
    char name[256];
    if (!self) {
        Dl_info info;
        if (dladdr((void *)cuInit, &info) && info.dli_fname) self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (!self) self = RTLD_DEFAULT;
    }
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof name, "%s%s", symbol, suffixes[i]);
        void *p = dlsym(self, name);
        if (p) { *pfn = p; if (status) *status = 0; OK; }
    }
    *pfn = NULL;
    if (status) *status = 1;   /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return 500;                /* CUDA_ERROR_NOT_FOUND */
}
CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags) {
    return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

/* Does the flag cuGetProcAddress is asked with change what a driver entry point costs?  One
 * process asks for the same entry points with CU_GET_PROC_ADDRESS_DEFAULT and with
 * CU_GET_PROC_ADDRESS_LEGACY_STREAM, says whether the driver handed out the same function, and
 * times both, interleaved in blocks in the same process (no order or process effect between
 * them).  benchmarks/run.sh runs it; its JSON lines go into results.json ("getproc_flags").
 *
 *   nvcc -O2 -o getproc_flags getproc_flags.c -lcuda && ./getproc_flags */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { fprintf(stderr, "%s: %d\n", #x, (int)r_); exit(1); } } while (0)
#define BLOCK 1000
#define BLOCKS 101

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef CUresult (*q1_t)(void *);
typedef CUresult (*cur_t)(CUcontext *);
typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
typedef CUresult (*free_t)(CUdeviceptr);

static void *get(const char *name, int version, cuuint64_t flags) {
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    CK(cuGetProcAddress(name, &p, version, flags, &st));
    if (!p) { fprintf(stderr, "%s not found\n", name); exit(1); }
    return p;
}

int main(void) {
    CUdevice dev;
    CUcontext ctx, cur;
    CUstream s;
    CUevent e;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuStreamCreate(&s, 0));
    CK(cuEventCreate(&e, 0));
    CK(cuEventRecord(e, s));
    CK(cuStreamSynchronize(s));

    struct { const char *name; int version; void *arg; int kind; } cases[] = {
        {"cuEventQuery", 2000, NULL, 0}, {"cuStreamQuery", 2000, NULL, 1},
        {"cuStreamSynchronize", 2000, NULL, 1}, {"cuCtxGetCurrent", 4000, NULL, 2},
        {"cuMemAlloc", 3020, NULL, 3}};
    cases[0].arg = e;
    cases[1].arg = s;
    cases[2].arg = s;
    static double t[2][BLOCKS];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        void *fn[2] = {get(cases[c].name, cases[c].version, CU_GET_PROC_ADDRESS_DEFAULT),
                       get(cases[c].name, cases[c].version, CU_GET_PROC_ADDRESS_LEGACY_STREAM)};
        void *fr[2] = {get("cuMemFree", 3020, CU_GET_PROC_ADDRESS_DEFAULT),      /* kind 3: + cuMemFree */
                       get("cuMemFree", 3020, CU_GET_PROC_ADDRESS_LEGACY_STREAM)};
        CUdeviceptr d;
        for (int b = 0; b < BLOCKS; b++) {
            for (int v = 0; v < 2; v++) {
                int k = (b & 1) ? 1 - v : v;      /* alternate which goes first */
                double t0 = now_ns();
                for (int i = 0; i < BLOCK; i++) {
                    if (cases[c].kind == 2) ((cur_t)fn[k])(&cur);
                    else if (cases[c].kind == 3) { ((alloc_t)fn[k])(&d, 4096); ((free_t)fr[k])(d); }
                    else ((q1_t)fn[k])(cases[c].arg);
                }
                t[k][b] = (now_ns() - t0) / BLOCK;
            }
        }
        qsort(t[0], BLOCKS, sizeof(double), cmp);
        qsort(t[1], BLOCKS, sizeof(double), cmp);
        printf("{\"case\": \"%s%s\", \"same_function\": %s, \"default_ns\": %.1f, \"legacy_stream_ns\": %.1f, "
               "\"default_p10\": %.1f, \"legacy_stream_p10\": %.1f}\n", cases[c].name,
               cases[c].kind == 3 ? "+cuMemFree" : "", fn[0] == fn[1] && (cases[c].kind != 3 || fr[0] == fr[1]) ? "true" : "false",
               t[0][BLOCKS / 2], t[1][BLOCKS / 2], t[0][BLOCKS / 10], t[1][BLOCKS / 10]);
    }
    CK(cuEventDestroy(e));
    CK(cuStreamDestroy(s));
    CK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

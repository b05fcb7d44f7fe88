// The C twin of benchmarks/calls.py: the same driver calls, made straight from C, as the floor
// that no binding can go under.  Case names match calls.py (the launch cases have one C form,
// a void*[] of argument addresses, which all three Python forms are compared with).
//
//   nvcc -cubin -arch=sm_90 -o kernels.cubin kernels.cu
//   nvcc -O2 -o overhead_c overhead_c.c -lcuda        (or: gcc -O2 -I$CUDA/include ... -lcuda)
//   ./overhead_c kernels.cubin            all cases, one JSON line each
//   ./overhead_c --init-only              only the time of the first cuInit(0) of this process
//
// Timing, as in calls.py: a case is calibrated so that one repeat lasts about 10 ms, then the
// fastest of 7 repeats is reported as nanoseconds per call.  Calls that queue work on the GPU are
// capped at 500 per repeat (fastest of 21) and the stream is synchronized, untimed, after each
// repeat, so the queue never fills.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 7
#define REPEATS_QUEUED 21
#define TARGET_NS 10e6
#define QUEUED_CAP 500
#define PLAIN_CAP 5000000L

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

#define CK(x)                                                                   \
    do {                                                                        \
        CUresult r_ = (x);                                                      \
        if (r_ != CUDA_SUCCESS) {                                               \
            fprintf(stderr, "overhead_c: %s failed with CUresult %d\n", #x, r_); \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

static CUstream stream;

// One case: check the call once, calibrate, then the fastest of REPEATS repeats.
#define BENCH(name, queued, expr)                                                              \
    do {                                                                                       \
        CUresult r0_ = (expr);                                                                 \
        if (r0_ != CUDA_SUCCESS) {                                                             \
            printf("{\"case\": \"%s\", \"error\": \"CUresult %d\"}\n", name, (int)r0_);        \
            fflush(stdout);                                                                    \
            cuStreamSynchronize(stream);                                                       \
            break;                                                                             \
        }                                                                                      \
        long cap_ = (queued) ? QUEUED_CAP : PLAIN_CAP;                                         \
        long n_ = 16;                                                                          \
        double t_;                                                                             \
        for (;;) {                                                                             \
            double t0_ = now_ns();                                                             \
            for (long i_ = 0; i_ < n_; i_++) { (void)(expr); }                                 \
            t_ = now_ns() - t0_;                                                               \
            if (queued) CK(cuStreamSynchronize(stream));                                       \
            if (t_ >= 2e6 || n_ >= cap_) break;                                                \
            n_ *= 4;                                                                           \
            if (n_ > cap_) n_ = cap_;                                                          \
        }                                                                                      \
        {   /* a second look, so one stall cannot shrink the repeats */                        \
            double t0_ = now_ns();                                                             \
            for (long i_ = 0; i_ < n_; i_++) { (void)(expr); }                                 \
            double t2_ = now_ns() - t0_;                                                       \
            if (queued) CK(cuStreamSynchronize(stream));                                       \
            if (t2_ < t_) t_ = t2_;                                                            \
        }                                                                                      \
        long iters_ = (long)(TARGET_NS / (t_ / n_ > 1.0 ? t_ / n_ : 1.0));                     \
        if (iters_ < 16) iters_ = 16;                                                          \
        if (iters_ > cap_) iters_ = cap_;                                                      \
        double best_ = 1e300;                                                                  \
        int reps_ = (queued) ? REPEATS_QUEUED : REPEATS;                                       \
        for (int r_ = 0; r_ < reps_; r_++) {                                                   \
            double t0_ = now_ns();                                                             \
            for (long i_ = 0; i_ < iters_; i_++) { (void)(expr); }                             \
            double per_ = (now_ns() - t0_) / iters_;                                           \
            if (queued) CK(cuStreamSynchronize(stream));                                       \
            if (per_ < best_) best_ = per_;                                                    \
        }                                                                                      \
        printf("{\"case\": \"%s\", \"ns\": %.2f, \"iters\": %ld, \"repeats\": %d}\n", name,   \
               best_, iters_, reps_);                                                          \
        fflush(stdout);                                                                        \
    } while (0)

static CUresult event_create_destroy(void)
{
    CUevent e;
    CUresult r = cuEventCreate(&e, 0);
    return r != CUDA_SUCCESS ? r : cuEventDestroy(e);
}

static CUresult stream_create_destroy(void)
{
    CUstream s;
    CUresult r = cuStreamCreate(&s, 0);
    return r != CUDA_SUCCESS ? r : cuStreamDestroy(s);
}

static CUresult alloc_free(void)
{
    CUdeviceptr p;
    CUresult r = cuMemAlloc(&p, 4096);
    return r != CUDA_SUCCESS ? r : cuMemFree(p);
}

// Arguments of k16 / k256: (unsigned long long n, pairs (int *p, int v), int w).
#define MAX_PAIRS 127
static unsigned long long pair_n = 7;
static CUdeviceptr pair_p[MAX_PAIRS];
static int pair_v[MAX_PAIRS];
static int pair_w = 0;

static void pack_pairs(void **params, int pairs, CUdeviceptr buf)
{
    params[0] = &pair_n;
    for (int i = 0; i < pairs; i++) {
        pair_p[i] = buf + 4 * i;
        pair_v[i] = i;
        params[1 + 2 * i] = &pair_p[i];
        params[2 + 2 * i] = &pair_v[i];
    }
    params[1 + 2 * pairs] = &pair_w;
}

int main(int argc, char **argv)
{
    double t0 = now_ns();
    CUresult init = cuInit(0);
    double t_init = now_ns() - t0;
    if (init != CUDA_SUCCESS) {
        fprintf(stderr, "overhead_c: cuInit(0) failed with CUresult %d\n", init);
        return 1;
    }
    printf("{\"case\": \"first_cuInit\", \"ns\": %.0f}\n", t_init);
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "--init-only") == 0)
        return 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s kernels.cubin | --init-only\n", argv[0]);
        return 2;
    }

    CUdevice dev;
    CUcontext ctx, cur;
    CUmodule mod;
    CUfunction k0, k4, k8, k16, k256;
    CUevent ev_done, ev_rec;
    CUdeviceptr buf;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuModuleLoad(&mod, argv[1]));
    CK(cuModuleGetFunction(&k0, mod, "k0"));
    CK(cuModuleGetFunction(&k4, mod, "k4"));
    CK(cuModuleGetFunction(&k8, mod, "k8"));
    CK(cuModuleGetFunction(&k16, mod, "k16"));
    CK(cuModuleGetFunction(&k256, mod, "k256"));
    CK(cuStreamCreate(&stream, 0));
    CK(cuMemAlloc(&buf, 1 << 20));
    CK(cuEventCreate(&ev_done, 0));
    CK(cuEventCreate(&ev_rec, 0));
    CK(cuEventRecord(ev_done, stream));
    CK(cuStreamSynchronize(stream));

    int value;
    const char *str;
    unsigned int memtype;
    float host = 0.0f;  // pageable host memory, like the numpy array in calls.py

    BENCH("cuCtxGetCurrent", 0, cuCtxGetCurrent(&cur));
    BENCH("cuDeviceGetAttribute", 0,
          cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    BENCH("cuGetErrorString", 0, cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &str));
    BENCH("cuEventQuery", 0, cuEventQuery(ev_done));
    BENCH("cuStreamQuery", 0, cuStreamQuery(stream));
    BENCH("cuEventRecord", 1, cuEventRecord(ev_rec, stream));
    BENCH("cuStreamSynchronize", 0, cuStreamSynchronize(stream));
    BENCH("cuEventCreate+cuEventDestroy", 0, event_create_destroy());
    BENCH("cuStreamCreate+cuStreamDestroy", 0, stream_create_destroy());
    BENCH("cuMemAlloc+cuMemFree_4KiB", 0, alloc_free());
    BENCH("cuMemcpyHtoD_4B", 0, cuMemcpyHtoD(buf, &host, 4));
    BENCH("cuMemcpyHtoDAsync_4B", 1, cuMemcpyHtoDAsync(buf, &host, 4, stream));
    BENCH("cuPointerGetAttribute", 0,
          cuPointerGetAttribute(&memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, buf));

    float a = 2.0f;
    CUdeviceptr x = buf, y = buf + 4, z = buf + 8, w = buf + 12;
    unsigned long long n = 7;
    int i = 3, j = 4;
    void *p4[] = {&a, &x, &y, &n};
    void *p8[] = {&a, &x, &y, &z, &w, &i, &j, &n};
    void *p16[16], *p256[256];
    pack_pairs(p16, 7, buf);
    pack_pairs(p256, 127, buf);  // the same storage: the first 7 pairs hold the same values

    BENCH("cuLaunchKernel_0args", 1, cuLaunchKernel(k0, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL));
    BENCH("cuLaunchKernel_4args", 1, cuLaunchKernel(k4, 1, 1, 1, 32, 1, 1, 0, stream, p4, NULL));
    BENCH("cuLaunchKernel_8args", 1, cuLaunchKernel(k8, 1, 1, 1, 32, 1, 1, 0, stream, p8, NULL));
    BENCH("cuLaunchKernel_16args", 1, cuLaunchKernel(k16, 1, 1, 1, 32, 1, 1, 0, stream, p16, NULL));
    BENCH("cuLaunchKernel_256args", 1,
          cuLaunchKernel(k256, 1, 1, 1, 32, 1, 1, 0, stream, p256, NULL));

    CK(cuStreamSynchronize(stream));
    CK(cuMemFree(buf));
    CK(cuEventDestroy(ev_done));
    CK(cuEventDestroy(ev_rec));
    CK(cuStreamDestroy(stream));
    CK(cuModuleUnload(mod));
    CK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

/* A driver in front of the driver: a libcuda.so.1 that loads the real one and hands out, from
 * cuGetProcAddress, entry points that count their calls, so that one process's figures say which
 * driver entry points a binding calls per launch, how long the driver itself takes per launch
 * and how long the caller takes between two launches, and what the launch is given (where the
 * void*[] and the values lie).  benchmarks/measure.py runs benchmarks/calls.py's launch cases
 * under it with each package (LD_LIBRARY_PATH, as for the no-op driver):
 *
 *   cc -O2 -shared -fPIC -o libcuda.so.1 drvprobe.c -ldl
 *   DRVPROBE_REAL=/usr/lib/x86_64-linux-gnu/libcuda.so.1 DRVPROBE_OUT=probe.jsonl \
 *       LD_LIBRARY_PATH=<folder of this libcuda.so.1> python3 calls.py ...
 *
 * - Every pointer cuGetProcAddress(_v2) returns is replaced by a trampoline (written at run time:
 *   two counter increments and a jump, no register but r11 touched) that counts the call and
 *   jumps to the real entry point; cuLaunchKernel (and its per-thread-stream variant) instead
 *   by a C wrapper that also reads the time stamp counter around the real call, and the entry
 *   points of the other cases of calls.py (timed_names) by a forwarder that times them too.
 * - The process marks the start of each case (drvprobe_mark(name), through ctypes); at each mark
 *   and at exit the segment that ends is written to DRVPROBE_OUT as one JSON line: its launches,
 *   the calls of every entry point, the driver's time per launch and the caller's time between
 *   two launches with no other driver call between them (median, 10th percentile, minimum; in ns
 *   from the TSC, calibrated against CLOCK_MONOTONIC over the segment), and where the
 *   kernelParams array and the values it points to lay.
 * - cuGetProcAddress asked for itself hands out this wrapper again; the other C names are not
 *   exported (both packages take every entry point from cuGetProcAddress_v2).  At exit the
 *   record ends with every (name, version, flags) the process asked cuGetProcAddress for;
 *   DRVPROBE_ASK_VERSION=V asks the real driver for at least version V, DRVPROBE_ASK_FLAGS=F
 *   with flags F (experiments).
 * Not for timing anything else: the wrapper adds two rdtscp to each launch. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

typedef int CUresult;
typedef unsigned long long cuuint64_t;
typedef CUresult (*gpa2_t)(const char *, void **, int, cuuint64_t, int *);
typedef CUresult (*launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             void *, void **, void **);
typedef CUresult (*paraminfo_t)(void *, size_t, size_t *, size_t *);

#define MAXSYM 1024
#define SLOT 48
#define MAXLAUNCH (1 << 20)

static void *real;
static gpa2_t real_gpa2;
static paraminfo_t real_paraminfo;
static FILE *out;

struct sym { char name[96]; void *target; unsigned long long count, at_mark; };   /* one per entry point handed out */
static struct sym syms[MAXSYM];
static int nsym;
static unsigned long long others;          /* every counted call that is not a launch */
static unsigned char *code;                 /* the trampolines */

/* the segment being measured */
static char label[160];
static unsigned long long launches, gaps_n;
static uint64_t *in_cyc, *gap_cyc;
static uint64_t last_exit, others_at_exit;
static uint64_t seg_tsc0;
static struct timespec seg_t0;
static void *last_array;
static unsigned long long arrays_distinct;
static int have_params;
static struct { uintptr_t array; int nparams; uintptr_t vmin, vmax; long long array_pages, value_pages; int on_stack; } first;

static inline uint64_t tsc(void) { unsigned aux; return __rdtscp(&aux); }

static int sym_index(const char *name, void *target) {
    for (int i = 0; i < nsym; i++)
        if (syms[i].target == target && !strcmp(syms[i].name, name)) return i;
    if (nsym == MAXSYM) return -1;
    snprintf(syms[nsym].name, sizeof syms[nsym].name, "%s", name);
    syms[nsym].target = target;
    return nsym++;
}

/* movabs r11, &count; lock inc qword [r11]; movabs r11, &others; lock inc qword [r11];
   movabs r11, target; jmp r11 */
static void *trampoline(int i, void *target) {
    unsigned char *p = code + (size_t)i * SLOT;
    unsigned long long *cnt = &syms[i].count, *oth = &others;
    static const unsigned char movabs[2] = {0x49, 0xBB}, inc[4] = {0xF0, 0x49, 0xFF, 0x03}, jmp[3] = {0x41, 0xFF, 0xE3};
    memcpy(p, movabs, 2); memcpy(p + 2, &cnt, 8); memcpy(p + 10, inc, 4);
    memcpy(p + 14, movabs, 2); memcpy(p + 16, &oth, 8); memcpy(p + 24, inc, 4);
    memcpy(p + 28, movabs, 2); memcpy(p + 30, &target, 8); memcpy(p + 38, jmp, 3);
    return p;
}

/* values in different mappings lie terabytes apart: more pages than an int holds */
static long long pages_of(uintptr_t lo, uintptr_t hi) { return (long long)((hi >> 12) - (lo >> 12) + 1); }

static void look_at_params(void *f, void **params, void *stack_mark) {
    size_t off, size;
    int n = 0;
    memset(&first, 0, sizeof first);
    first.array = (uintptr_t)params;
    if (params && real_paraminfo)
        while (n < 4096 && real_paraminfo(f, (size_t)n, &off, &size) == 0) n++;
    first.nparams = n;
    first.on_stack = params && ((uintptr_t)params > (uintptr_t)stack_mark
                                ? (uintptr_t)params - (uintptr_t)stack_mark : (uintptr_t)stack_mark - (uintptr_t)params) < (8u << 20);
    if (n > 0) {
        uintptr_t lo = (uintptr_t)params[0], hi = lo;
        for (int i = 1; i < n; i++) {
            uintptr_t v = (uintptr_t)params[i];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        first.vmin = lo;
        first.vmax = hi;
        first.value_pages = pages_of(lo, hi);
        first.array_pages = pages_of((uintptr_t)params, (uintptr_t)params + (size_t)n * sizeof(void *) - 1);
    }
    have_params = 1;
}

static CUresult launch_common(launch_t fn, void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned sh, void *s, void **params, void **extra) {
    int stack_mark;
    if (!have_params) look_at_params(f, params, &stack_mark);
    if ((void *)params != last_array) { arrays_distinct++; last_array = params; }
    uint64_t t0 = tsc();
    CUresult r = fn(f, gx, gy, gz, bx, by, bz, sh, s, params, extra);
    uint64_t t1 = tsc();
    if (launches < MAXLAUNCH) {
        in_cyc[launches] = t1 - t0;
        if (last_exit && others == others_at_exit) gap_cyc[gaps_n++] = t0 - last_exit;
    }
    launches++;
    last_exit = t1;
    others_at_exit = others;
    return r;
}

#define LAUNCH_WRAPPER(k) \
    static launch_t real_launch_##k; \
    static CUresult launch_##k(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
                               unsigned sh, void *s, void **params, void **extra) { \
        return launch_common(real_launch_##k, f, gx, gy, gz, bx, by, bz, sh, s, params, extra); }
LAUNCH_WRAPPER(0)
LAUNCH_WRAPPER(1)
LAUNCH_WRAPPER(2)
LAUNCH_WRAPPER(3)
static launch_t *const real_launch[4] = {&real_launch_0, &real_launch_1, &real_launch_2, &real_launch_3};
static void *const launch_wrapper[4] = {(void *)launch_0, (void *)launch_1, (void *)launch_2, (void *)launch_3};

/* Entry points timed like the launch (each call's own time in the driver), by name: all take at
   most six integer or pointer arguments and return a CUresult, so one forwarder of six 64-bit
   arguments passes any of them through unchanged (registers the function does not read are
   ignored). */
static const char *const timed_names[] = {
    "cuCtxGetCurrent", "cuDeviceGetAttribute", "cuGetErrorString", "cuEventQuery", "cuStreamQuery",
    "cuEventRecord", "cuStreamSynchronize", "cuEventCreate", "cuEventDestroy", "cuStreamCreate",
    "cuStreamDestroy", "cuMemAlloc", "cuMemFree", "cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuPointerGetAttribute"};
#define NTIMED ((int)(sizeof timed_names / sizeof timed_names[0]))
#define MAXTIMED (1 << 16)
typedef uint64_t (*fwd6_t)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
static struct { fwd6_t real; int sym; unsigned long long n; uint64_t *cyc; } timed[NTIMED];

static inline uint64_t timed_call(int k, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) {
    syms[timed[k].sym].count++;
    others++;
    uint64_t t0 = tsc();
    uint64_t r = timed[k].real(a, b, c, d, e, f);
    uint64_t t1 = tsc();
    if (timed[k].n < MAXTIMED) timed[k].cyc[timed[k].n] = t1 - t0;
    timed[k].n++;
    return r;
}
#define TIMED(k) static uint64_t timed_##k(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) \
    { return timed_call(k, a, b, c, d, e, f); }
TIMED(0) TIMED(1) TIMED(2) TIMED(3) TIMED(4) TIMED(5) TIMED(6) TIMED(7)
TIMED(8) TIMED(9) TIMED(10) TIMED(11) TIMED(12) TIMED(13) TIMED(14) TIMED(15)
static void *const timed_fn[16] = {(void *)timed_0, (void *)timed_1, (void *)timed_2, (void *)timed_3,
    (void *)timed_4, (void *)timed_5, (void *)timed_6, (void *)timed_7, (void *)timed_8, (void *)timed_9,
    (void *)timed_10, (void *)timed_11, (void *)timed_12, (void *)timed_13, (void *)timed_14, (void *)timed_15};

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void write_stats(const char *key, uint64_t *v, unsigned long long n, double ns_per_cycle, int comma) {
    unsigned long long m = n < MAXLAUNCH ? n : MAXLAUNCH;
    if (m == 0) { fprintf(out, "%s\"%s\": null", comma ? ", " : "", key); return; }
    qsort(v, m, sizeof *v, cmp_u64);
    fprintf(out, "%s\"%s\": {\"n\": %llu, \"median\": %.1f, \"p10\": %.1f, \"p90\": %.1f, \"min\": %.1f}",
            comma ? ", " : "", key, m, v[m / 2] * ns_per_cycle, v[m / 10] * ns_per_cycle, v[(m * 9) / 10] * ns_per_cycle,
            v[0] * ns_per_cycle);
}

static void flush_segment(void) {
    if (!out || !label[0]) return;
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t c1 = tsc();
    double ns = (t1.tv_sec - seg_t0.tv_sec) * 1e9 + (t1.tv_nsec - seg_t0.tv_nsec);
    double ns_per_cycle = c1 > seg_tsc0 ? ns / (double)(c1 - seg_tsc0) : 0.0;
    fprintf(out, "{\"case\": \"%s\", \"label\": \"%s\", \"launches\": %llu, \"ns_per_cycle\": %.6f, \"calls\": {",
            label, getenv("DRVPROBE_LABEL") ? getenv("DRVPROBE_LABEL") : "", launches, ns_per_cycle);
    int comma = 0;
    for (int i = 0; i < nsym; i++) {      /* by name: a name asked for at two versions is summed */
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = !strcmp(syms[j].name, syms[i].name);
        if (seen) continue;
        unsigned long long d = 0;
        for (int j = i; j < nsym; j++)
            if (!strcmp(syms[j].name, syms[i].name)) d += syms[j].count - syms[j].at_mark;
        if (d) { fprintf(out, "%s\"%s\": %llu", comma ? ", " : "", syms[i].name, d); comma = 1; }
    }
    fprintf(out, "}, ");
    write_stats("driver_ns", in_cyc, launches, ns_per_cycle, 0);
    write_stats("between_ns", gap_cyc, gaps_n, ns_per_cycle, 1);
    fprintf(out, ", \"timed_ns\": {");
    comma = 0;
    for (int k = 0; k < NTIMED; k++) {
        if (!timed[k].n) continue;
        fprintf(out, comma ? ", " : "");
        comma = 1;
        char key[64];
        snprintf(key, sizeof key, "%s", timed_names[k]);
        write_stats(key, timed[k].cyc, timed[k].n < MAXTIMED ? timed[k].n : MAXTIMED, ns_per_cycle, 0);
    }
    fprintf(out, "}");
    if (have_params)
        fprintf(out, ", \"params\": {\"array_mod64\": %u, \"array_page_offset\": %u, \"on_stack\": %s, "
                "\"arrays_distinct\": %llu, \"nparams\": %d, \"values_from_array\": %lld, \"values_span\": %llu, "
                "\"array_pages\": %lld, \"value_pages\": %lld}",
                (unsigned)(first.array & 63), (unsigned)(first.array & 4095), first.on_stack ? "true" : "false",
                arrays_distinct, first.nparams, first.nparams ? (long long)(first.vmin - first.array) : 0LL,
                first.nparams ? (unsigned long long)(first.vmax - first.vmin) : 0ULL, first.array_pages, first.value_pages);
    fprintf(out, "}\n");
    fflush(out);
}

/* Exported: ends the segment being measured (written out) and starts one called `name` ("" to
   stop measuring). */
__attribute__((visibility("default"))) void drvprobe_mark(const char *name) {
    flush_segment();
    snprintf(label, sizeof label, "%s", name ? name : "");
    for (int i = 0; i < nsym; i++) syms[i].at_mark = syms[i].count;
    for (int k = 0; k < NTIMED; k++) timed[k].n = 0;
    launches = gaps_n = 0;
    last_exit = 0;
    last_array = NULL;
    arrays_distinct = 0;
    have_params = 0;
    clock_gettime(CLOCK_MONOTONIC, &seg_t0);
    seg_tsc0 = tsc();
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                                                     cuuint64_t flags, int *status);

static void *wrap(const char *symbol, void *p) {
    if (!strcmp(symbol, "cuGetProcAddress")) return (void *)cuGetProcAddress_v2;
    if (!strcmp(symbol, "cuLaunchKernel")) {
        for (int k = 0; k < 4; k++) {
            if (*real_launch[k] == (launch_t)p || *real_launch[k] == NULL) {
                *real_launch[k] = (launch_t)p;
                return launch_wrapper[k];
            }
        }
        return p;
    }
    int i = sym_index(symbol, p);
    if (i < 0) return p;
    for (int k = 0; k < NTIMED; k++) {
        if (!strcmp(symbol, timed_names[k]) && (timed[k].real == NULL || timed[k].real == (fwd6_t)p)) {
            timed[k].real = (fwd6_t)p;      /* the first version asked for is timed; others counted */
            timed[k].sym = i;
            return timed_fn[k];
        }
    }
    return trampoline(i, p);
}

/* what each cuGetProcAddress asked for: written at exit */
#define MAXASKED 4096
static struct { char name[64]; int version; cuuint64_t flags; } asked[MAXASKED];
static int nasked, ask_version;
static long long ask_flags = -1;

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags, int *status) {
    if (symbol && nasked < MAXASKED) {
        snprintf(asked[nasked].name, sizeof asked[nasked].name, "%s", symbol);
        asked[nasked].version = version;
        asked[nasked++].flags = flags;
    }
    if (ask_version > version) version = ask_version;   /* DRVPROBE_ASK_VERSION: an experiment */
    if (ask_flags >= 0) flags = (cuuint64_t)ask_flags;  /* DRVPROBE_ASK_FLAGS: likewise */
    CUresult r = real_gpa2(symbol, pfn, version, flags, status);
    if (r == 0 && pfn && *pfn && symbol) *pfn = wrap(symbol, *pfn);
    return r;
}

__attribute__((visibility("default"))) CUresult cuGetProcAddress(const char *symbol, void **pfn, int version,
                                                                  cuuint64_t flags) {
    return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("DRVPROBE_REAL");
    if (!path || !(real = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "drvprobe: cannot load the real driver (DRVPROBE_REAL=%s): %s\n", path ? path : "(unset)",
                dlerror());
        abort();
    }
    real_gpa2 = (gpa2_t)dlsym(real, "cuGetProcAddress_v2");
    real_paraminfo = (paraminfo_t)dlsym(real, "cuFuncGetParamInfo");
    code = mmap(NULL, (size_t)MAXSYM * SLOT, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (int k = 0; k < NTIMED; k++)
        if (!(timed[k].cyc = malloc(sizeof(uint64_t) * MAXTIMED))) abort();
    in_cyc = malloc(sizeof(uint64_t) * MAXLAUNCH);
    gap_cyc = malloc(sizeof(uint64_t) * MAXLAUNCH);
    if (!real_gpa2 || code == MAP_FAILED || !in_cyc || !gap_cyc) {
        fprintf(stderr, "drvprobe: no cuGetProcAddress_v2 in %s, or no memory\n", path);
        abort();
    }
    if (getenv("DRVPROBE_ASK_VERSION")) ask_version = atoi(getenv("DRVPROBE_ASK_VERSION"));
    if (getenv("DRVPROBE_ASK_FLAGS")) ask_flags = atoll(getenv("DRVPROBE_ASK_FLAGS"));
    const char *o = getenv("DRVPROBE_OUT");
    out = o ? fopen(o, "a") : NULL;
    drvprobe_mark("");
}

__attribute__((destructor)) static void stop(void) {
    flush_segment();
    if (out) {
        fprintf(out, "{\"asked\": [");
        for (int i = 0; i < nasked; i++)
            fprintf(out, "%s[\"%s\", %d, %llu]", i ? ", " : "", asked[i].name, asked[i].version, asked[i].flags);
        fprintf(out, "], \"label\": \"%s\", \"ask_version\": %d}\n",
                getenv("DRVPROBE_LABEL") ? getenv("DRVPROBE_LABEL") : "", ask_version);
    }
    if (out) fclose(out);
    out = NULL;
}

/* Which driver calls can keep the GIL: counts, per call, the lock, wait and kernel-entry functions
 * the driver reaches from the calling thread.
 *
 * Built as one program that interposes the functions below (exported with -rdynamic, so libcuda's
 * calls bind to them) and counts only calls made by the probing thread while a probe runs.
 * A call that reaches none of them in PROBE_N calls takes no pthread lock, waits on nothing and
 * enters the kernel through none of these doors: it cannot block on another thread, which is the
 * condition for overrides.KEEP_GIL.  The control rows (a synchronize, an allocation) show that the
 * counter sees the driver's locks where there are some.
 *
 *   gcc -O2 -rdynamic -o lockprobe lockprobe.c -ldl -lcuda -lpthread && ./lockprobe
 * Output: one JSON object per line {"call": ..., "per_call": {name: count / PROBE_N, ...}}. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define PROBE_N 100000
enum { MUTEX, MUTEX_TRY, RWLOCK_RD, RWLOCK_WR, SPIN, SEM_WAIT, COND_WAIT, IOCTL, POLL, SYSCALL, SCHED_YIELD, NANOSLEEP, NKINDS };
static const char *kind_names[NKINDS] = {"pthread_mutex_lock", "pthread_mutex_trylock", "pthread_rwlock_rdlock",
    "pthread_rwlock_wrlock", "pthread_spin_lock", "sem_wait", "pthread_cond_wait", "ioctl", "poll",
    "syscall", "sched_yield", "nanosleep"};
static __thread int counting;
static unsigned long counts[NKINDS];
#define COUNT(k) do { if (counting) counts[k]++; } while (0)
#define NEXT(ret, name, ...) static ret (*real)(__VA_ARGS__); if (!real) real = dlsym(RTLD_NEXT, name)

int pthread_mutex_lock(pthread_mutex_t *m) { NEXT(int, "pthread_mutex_lock", pthread_mutex_t *); COUNT(MUTEX); return real(m); }
int pthread_mutex_trylock(pthread_mutex_t *m) { NEXT(int, "pthread_mutex_trylock", pthread_mutex_t *); COUNT(MUTEX_TRY); return real(m); }
int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t) { NEXT(int, "pthread_mutex_timedlock", pthread_mutex_t *, const struct timespec *); COUNT(MUTEX); return real(m, t); }
int pthread_rwlock_rdlock(pthread_rwlock_t *l) { NEXT(int, "pthread_rwlock_rdlock", pthread_rwlock_t *); COUNT(RWLOCK_RD); return real(l); }
int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) { NEXT(int, "pthread_rwlock_tryrdlock", pthread_rwlock_t *); COUNT(RWLOCK_RD); return real(l); }
int pthread_rwlock_wrlock(pthread_rwlock_t *l) { NEXT(int, "pthread_rwlock_wrlock", pthread_rwlock_t *); COUNT(RWLOCK_WR); return real(l); }
int pthread_rwlock_trywrlock(pthread_rwlock_t *l) { NEXT(int, "pthread_rwlock_trywrlock", pthread_rwlock_t *); COUNT(RWLOCK_WR); return real(l); }
int pthread_spin_lock(pthread_spinlock_t *l) { NEXT(int, "pthread_spin_lock", pthread_spinlock_t *); COUNT(SPIN); return real(l); }
int pthread_spin_trylock(pthread_spinlock_t *l) { NEXT(int, "pthread_spin_trylock", pthread_spinlock_t *); COUNT(SPIN); return real(l); }
int sem_wait(sem_t *s) { NEXT(int, "sem_wait", sem_t *); COUNT(SEM_WAIT); return real(s); }
int sem_timedwait(sem_t *s, const struct timespec *t) { NEXT(int, "sem_timedwait", sem_t *, const struct timespec *); COUNT(SEM_WAIT); return real(s, t); }
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) { NEXT(int, "pthread_cond_wait", pthread_cond_t *, pthread_mutex_t *); COUNT(COND_WAIT); return real(c, m); }
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) { NEXT(int, "pthread_cond_timedwait", pthread_cond_t *, pthread_mutex_t *, const struct timespec *); COUNT(COND_WAIT); return real(c, m, t); }
int ioctl(int fd, unsigned long req, ...) { va_list ap; va_start(ap, req); void *arg = va_arg(ap, void *); va_end(ap); NEXT(int, "ioctl", int, unsigned long, void *); COUNT(IOCTL); return real(fd, req, arg); }
int poll(struct pollfd *f, nfds_t n, int t) { NEXT(int, "poll", struct pollfd *, nfds_t, int); COUNT(POLL); return real(f, n, t); }
long syscall(long no, ...) { va_list ap; va_start(ap, no); long a[6]; for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long); va_end(ap);
    NEXT(long, "syscall", long, long, long, long, long, long, long); COUNT(SYSCALL); return real(no, a[0], a[1], a[2], a[3], a[4], a[5]); }
int sched_yield(void) { NEXT(int, "sched_yield", void); COUNT(SCHED_YIELD); return real(); }
int nanosleep(const struct timespec *a, struct timespec *b) { NEXT(int, "nanosleep", const struct timespec *, struct timespec *); COUNT(NANOSLEEP); return real(a, b); }

static void report(const char *call, CUresult last) {
    printf("{\"call\": \"%s\", \"status\": %d, \"calls\": %d, \"per_call\": {", call, (int)last, PROBE_N);
    int first = 1;
    for (int k = 0; k < NKINDS; k++)
        if (counts[k]) { printf("%s\"%s\": %.3f", first ? "" : ", ", kind_names[k], counts[k] / (double)PROBE_N); first = 0; }
    printf("}}\n");
    fflush(stdout);
}
#define PROBE(label, expr) do { CUresult r_ = CUDA_SUCCESS; memset(counts, 0, sizeof counts); counting = 1; \
    for (int i_ = 0; i_ < PROBE_N; i_++) r_ = (expr); counting = 0; report(label, r_); } while (0)

int main(void) {
    CUdevice dev; CUcontext ctx, cur; CUstream s; CUevent ev; CUdeviceptr d; const char *str; int v;
    if (cuInit(0) || cuDeviceGet(&dev, 0)) { printf("{\"error\": \"no device\"}\n"); return 3; }
    cuDevicePrimaryCtxRetain(&ctx, dev); cuCtxSetCurrent(ctx);
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING); cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
    cuEventRecord(ev, s); cuStreamSynchronize(s); cuMemAlloc(&d, 4096);
    PROBE("cuCtxGetCurrent", cuCtxGetCurrent(&cur));
    PROBE("cuGetErrorString", cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &str));
    PROBE("cuGetErrorName", cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &str));
    PROBE("cuDriverGetVersion", cuDriverGetVersion(&v));
    /* every attribute on its own: some are read from the kernel (ioctl) or behind a lock */
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
        char label[64];
        snprintf(label, sizeof label, "cuDeviceGetAttribute[%d]", a);
        CUresult r = CUDA_SUCCESS;
        memset(counts, 0, sizeof counts); counting = 1;
        for (int i = 0; i < PROBE_N / 100; i++) r = cuDeviceGetAttribute(&v, (CUdevice_attribute)a, dev);
        counting = 0;
        for (int k = 0; k < NKINDS; k++) counts[k] *= 100;   /* per-call figures on the same scale */
        report(label, r);
    }
    PROBE("cuDeviceGet", cuDeviceGet(&dev, 0));
    PROBE("cuDeviceGetCount", cuDeviceGetCount(&v));
    PROBE("cuCtxGetDevice", cuCtxGetDevice(&dev));
    PROBE("cuEventQuery (completed)", cuEventQuery(ev));
    PROBE("cuStreamQuery (idle)", cuStreamQuery(s));
    PROBE("cuPointerGetAttribute (memory type)", cuPointerGetAttribute(&v, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    /* controls: calls that synchronize or allocate */
    PROBE("control: cuStreamSynchronize (idle)", cuStreamSynchronize(s));
    PROBE("control: cuEventRecord", cuEventRecord(ev, s));
    cuStreamSynchronize(s);
    return 0;
}

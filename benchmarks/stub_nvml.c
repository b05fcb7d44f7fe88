/* A no-op libnvidia-ml.so.1, beside benchmarks/stub_driver.c's no-op driver: the NVML calls of
 * benchmarks/calls.py return NVML_SUCCESS at once with fixed values, so that their rows on the
 * no-op driver are the binding's own cost, as the driver's are (the real NVML's own work is 0.2
 * to 4 us a call, more than either binding's).  benchmarks/run.sh builds it into the no-op
 * driver's folder, found through LD_LIBRARY_PATH by both packages (and by nvidia-ml-py).
 *
 *   cc -O2 -shared -fPIC -o libnvidia-ml.so.1 stub_nvml.c */
#include <string.h>

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
#define OK return 0
#define DEVICE ((nvmlDevice_t)0x2000)

typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct { unsigned int version; int sensorType; int temperature; } nvmlTemperature_t;

nvmlReturn_t nvmlInit_v2(void) { OK; }
nvmlReturn_t nvmlInit(void) { OK; }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { OK; }
nvmlReturn_t nvmlShutdown(void) { OK; }
const char *nvmlErrorString(nvmlReturn_t r) { return "stub: no error"; }
nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int n) { if (n) strncpy(v, "stub", n); OK; }
nvmlReturn_t nvmlSystemGetNVMLVersion(char *v, unsigned int n) { if (n) strncpy(v, "stub", n); OK; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { *n = 1; OK; }
nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { *n = 1; OK; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) { *d = DEVICE; OK; }
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d) { *d = DEVICE; OK; }
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int n) { if (n) strncpy(name, "stub", n); OK; }
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    m->total = 1ull << 36; m->reserved = 1ull << 20; m->free = 1ull << 35; m->used = m->total - m->free; OK;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    m->total = 1ull << 36; m->free = 1ull << 35; m->used = m->total - m->free; OK;
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) { u->gpu = 1; u->memory = 2; OK; }
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t d, nvmlTemperature_t *t) { t->temperature = 40; OK; }
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t) { *t = 40; OK; }

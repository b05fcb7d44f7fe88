/* Stand-in for <vdpau/vdpau.h>: only the types the CUDA VDPAU interop headers use. */
#ifndef CUDA_BINDINGS_STUB_VDPAU_H
#define CUDA_BINDINGS_STUB_VDPAU_H
#include <stdint.h>
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef uint32_t VdpFuncId;
typedef int VdpStatus;
typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, void **function_pointer);
#endif

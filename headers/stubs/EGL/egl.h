/* Stand-in for <EGL/egl.h>: only the types the CUDA EGL interop headers use (see ../README.md). */
#ifndef CUDA_BINDINGS_STUB_EGL_H
#define CUDA_BINDINGS_STUB_EGL_H
typedef int EGLint;
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef void *EGLSyncKHR;
#endif

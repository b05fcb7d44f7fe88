/* Stand-in for <GL/gl.h>: only the types the CUDA GL interop headers use (see ../README.md). */
#ifndef CUDA_BINDINGS_STUB_GL_H
#define CUDA_BINDINGS_STUB_GL_H
typedef unsigned int GLenum;
typedef unsigned int GLuint;
#endif

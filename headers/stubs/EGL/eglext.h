/* Stand-in for <EGL/eglext.h>: its KHR types are in the stand-in egl.h (see ../README.md). */
#include "egl.h"

# The conversions between the runtime's EGL frame (cudaEglFrame) and the driver's (CUeglFrame)
# that NVIDIA's private runtime layer exports (getDriverEglFrame, getRuntimeEglFrame): included by
# the generated runtime layer (codegen/emit_private.py, overrides.PRIVATE_HELPERS), which cimports
# cyruntime's names and cydriver.
#
# The two headers give the EGL colour formats and frame types the same values, so they pass as
# they are; a value outside the driver's enum (CU_EGL_COLOR_FORMAT_MAX and above) is refused
# with cudaErrorInvalidValue. A channel descriptor and the driver's (format, channel count) are
# converted through one table.

from libc.string cimport memset
from cuda.bindings cimport cydriver
from cuda.bindings.cyruntime cimport (
    cudaArray_t, cudaChannelFormatDesc, cudaChannelFormatKind, cudaEglColorFormat, cudaEglFrame,
    cudaEglFrameType, cudaEglFrameTypeArray, cudaError_t, cudaErrorCallRequiresNewerDriver,
    cudaErrorInvalidChannelDescriptor, cudaErrorInvalidValue, cudaSuccess)

cdef extern from *:
    """
    /* (kind, bits of x, y, z, w) -> CUarray_format: kind -1 stands for the integer and float kinds,
       whose channels (1, 2 or 4) all have the bits of x */
    typedef struct { int kind; int x, y, z, w; int format; } _cb_desc_format;
    static const _cb_desc_format _cb_desc_formats[] = {
        {0, 8, -1, -1, -1, 0x08}, {0, 16, -1, -1, -1, 0x09}, {0, 32, -1, -1, -1, 0x0a},
        {1, 8, -1, -1, -1, 0x01}, {1, 16, -1, -1, -1, 0x02}, {1, 32, -1, -1, -1, 0x03},
        {2, 16, -1, -1, -1, 0x10}, {2, 32, -1, -1, -1, 0x20},
        {4, 8, 8, 8, 0, 0xb0},
        {5, 8, 0, 0, 0, 0xc0}, {6, 8, 8, 0, 0, 0xc1}, {7, 8, 8, 8, 8, 0xc2},
        {8, 16, 0, 0, 0, 0xc3}, {9, 16, 16, 0, 0, 0xc4}, {10, 16, 16, 16, 16, 0xc5},
        {11, 8, 0, 0, 0, 0xc6}, {12, 8, 8, 0, 0, 0xc7}, {13, 8, 8, 8, 8, 0xc8},
        {14, 16, 0, 0, 0, 0xc9}, {15, 16, 16, 0, 0, 0xca}, {16, 16, 16, 16, 16, 0xcb},
        {17, 8, 8, 8, 8, 0x91}, {18, 8, 8, 8, 8, 0x92}, {19, 8, 8, 8, 8, 0x93}, {20, 8, 8, 8, 8, 0x94},
        {21, 8, 8, 8, 8, 0x95}, {22, 8, 8, 8, 8, 0x96}, {23, 8, 0, 0, 0, 0x97}, {24, 8, 0, 0, 0, 0x98},
        {25, 8, 8, 0, 0, 0x99}, {26, 8, 8, 0, 0, 0x9a}, {27, 16, 16, 16, 0, 0x9b}, {28, 16, 16, 16, 0, 0x9c},
        {29, 8, 8, 8, 8, 0x9d}, {30, 8, 8, 8, 8, 0x9e}, {31, 10, 10, 10, 2, 0x50},
    };
    static const int _cb_n_desc_formats = sizeof(_cb_desc_formats) / sizeof(_cb_desc_formats[0]);
    """
    ctypedef struct _cb_desc_format:
        int kind
        int x, y, z, w
        int format
    const _cb_desc_format* _cb_desc_formats
    const int _cb_n_desc_formats


cdef int _channels(const cudaChannelFormatDesc* d) noexcept nogil:
    return (d.x != 0) + (d.y != 0) + (d.z != 0) + (d.w != 0)


cdef cudaError_t _format_of(const cudaChannelFormatDesc* d, unsigned int* channels,
                            cydriver.CUarray_format* fmt) noexcept nogil:
    """The driver's format and channel count of a channel descriptor."""
    cdef int i, n = _channels(d)
    cdef const _cb_desc_format* t
    for i in range(_cb_n_desc_formats):
        t = &_cb_desc_formats[i]
        if t.kind != <int>d.f or t.x != d.x:
            continue
        if t.y < 0:     # an integer or float kind: 1, 2 or 4 channels of x's bits
            if (n == 1 and d.y == 0 and d.z == 0 and d.w == 0) or (n == 2 and d.y == d.x and d.z == 0 and d.w == 0) \
                    or (n == 4 and d.y == d.x and d.z == d.x and d.w == d.x):
                channels[0] = n
                fmt[0] = <cydriver.CUarray_format>t.format
                return cudaSuccess
        elif t.y == d.y and t.z == d.z and t.w == d.w:
            channels[0] = n
            fmt[0] = <cydriver.CUarray_format>t.format
            return cudaSuccess
    return cudaErrorInvalidChannelDescriptor


cdef cudaError_t _desc_of(cydriver.CUarray_format fmt, unsigned int channels,
                          cudaChannelFormatDesc* d) noexcept nogil:
    """The channel descriptor of the driver's format and channel count."""
    cdef int i
    cdef const _cb_desc_format* t
    for i in range(_cb_n_desc_formats):
        t = &_cb_desc_formats[i]
        if t.format != <int>fmt:
            continue
        d.f = <cudaChannelFormatKind>t.kind
        if t.y < 0:
            if channels not in (1, 2, 4):
                return cudaErrorInvalidChannelDescriptor
            d.x = t.x
            d.y = t.x if channels > 1 else 0
            d.z = t.x if channels > 2 else 0
            d.w = t.x if channels > 2 else 0
        else:
            d.x, d.y, d.z, d.w = t.x, t.y, t.z, t.w
        return cudaSuccess
    return cudaErrorInvalidChannelDescriptor


cdef cudaError_t getDriverEglFrame(cydriver.CUeglFrame* cuEglFrame, cudaEglFrame eglFrame) except ?cudaErrorCallRequiresNewerDriver nogil:
    cdef unsigned int i
    cdef cudaError_t err = _format_of(&eglFrame.planeDesc[0].channelDesc, &cuEglFrame.numChannels,
                                      &cuEglFrame.cuFormat)
    if err != cudaSuccess:
        return err
    if <int>eglFrame.eglColorFormat < 0 or <int>eglFrame.eglColorFormat >= <int>cydriver.CU_EGL_COLOR_FORMAT_MAX \
            or <int>eglFrame.frameType not in (0, 1) or eglFrame.planeCount > 3:
        return cudaErrorInvalidValue
    for i in range(eglFrame.planeCount):
        if eglFrame.frameType == cudaEglFrameTypeArray:
            cuEglFrame.frame.pArray[i] = <cydriver.CUarray>eglFrame.frame.pArray[i]
        else:
            cuEglFrame.frame.pPitch[i] = eglFrame.frame.pPitch[i].ptr
    cuEglFrame.width = eglFrame.planeDesc[0].width
    cuEglFrame.height = eglFrame.planeDesc[0].height
    cuEglFrame.depth = eglFrame.planeDesc[0].depth
    cuEglFrame.pitch = eglFrame.planeDesc[0].pitch
    cuEglFrame.planeCount = eglFrame.planeCount
    cuEglFrame.eglColorFormat = <cydriver.CUeglColorFormat><int>eglFrame.eglColorFormat
    cuEglFrame.frameType = <cydriver.CUeglFrameType><int>eglFrame.frameType
    return cudaSuccess


# The colour formats whose planes after the first are subsampled, and those whose second plane
# holds two channels (semi-planar: VU or UV interleaved), with 16-bit channels for Y10 and Y12
cdef int _subsampled(cydriver.CUeglColorFormat c, unsigned int* w_div, unsigned int* h_div) noexcept nogil:
    """0 for a format whose planes all have the first's size; else 1 (planar) or 2 (semi-planar),
    with the divisors of the later planes' width and height."""
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV420_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV420_PLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU420_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU420_PLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YUV420_PLANAR_2020, cydriver.CU_EGL_COLOR_FORMAT_YVU420_PLANAR_2020,
             cydriver.CU_EGL_COLOR_FORMAT_YUV420_PLANAR_709, cydriver.CU_EGL_COLOR_FORMAT_YVU420_PLANAR_709):
        w_div[0], h_div[0] = 2, 2
        return 1
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV422_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV422_PLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU422_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU422_PLANAR_ER):
        w_div[0], h_div[0] = 2, 1
        return 1
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV444_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV444_PLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU444_PLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU444_PLANAR_ER):
        w_div[0], h_div[0] = 1, 1
        return 1
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_2020, cydriver.CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_2020,
             cydriver.CU_EGL_COLOR_FORMAT_YUV420_SEMIPLANAR_709, cydriver.CU_EGL_COLOR_FORMAT_YVU420_SEMIPLANAR_709,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_2020,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_709_ER):
        w_div[0], h_div[0] = 2, 2
        return 2
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV422_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV422_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU422_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU422_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_709,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_2020):
        w_div[0], h_div[0] = 2, 1
        return 2
    if c in (cydriver.CU_EGL_COLOR_FORMAT_YUV444_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YUV444_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_YVU444_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_YVU444_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_709_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_ER,
             cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_709_ER):
        w_div[0], h_div[0] = 1, 1
        return 2
    return 0


cdef bint _wide(cydriver.CUeglColorFormat c) noexcept nogil:
    """A semi-planar format of 10- or 12-bit samples (16-bit channels)."""
    return c in (cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_2020,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_420_SEMIPLANAR_709_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_420_SEMIPLANAR_709_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_709,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_422_SEMIPLANAR_2020,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR, cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y10V10U10_444_SEMIPLANAR_709_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_ER,
                 cydriver.CU_EGL_COLOR_FORMAT_Y12V12U12_444_SEMIPLANAR_709_ER)


cdef cudaError_t getRuntimeEglFrame(cudaEglFrame* eglFrame, cydriver.CUeglFrame cueglFrame) except ?cudaErrorCallRequiresNewerDriver nogil:
    cdef unsigned int i, w_div = 1, h_div = 1
    cdef cudaError_t err
    cdef int kind = _subsampled(cueglFrame.eglColorFormat, &w_div, &h_div)
    memset(eglFrame, 0, sizeof(eglFrame[0]))
    if <int>cueglFrame.eglColorFormat < 0 or <int>cueglFrame.eglColorFormat >= <int>cydriver.CU_EGL_COLOR_FORMAT_MAX \
            or <int>cueglFrame.frameType not in (0, 1) or cueglFrame.planeCount > 3:
        return cudaErrorInvalidValue
    for i in range(cueglFrame.planeCount):
        err = _desc_of(cueglFrame.cuFormat, cueglFrame.numChannels, &eglFrame.planeDesc[i].channelDesc)
        if err != cudaSuccess:
            return err
        eglFrame.planeDesc[i].depth = cueglFrame.depth
        eglFrame.planeDesc[i].numChannels = cueglFrame.numChannels
        if i == 0 or kind:
            eglFrame.planeDesc[i].width = cueglFrame.width // (w_div if i else 1)
            eglFrame.planeDesc[i].height = cueglFrame.height // (h_div if i else 1)
            eglFrame.planeDesc[i].pitch = cueglFrame.pitch // (w_div if i else 1)
        if i == 1 and kind == 2:
            eglFrame.planeDesc[1].channelDesc.y = 16 if _wide(cueglFrame.eglColorFormat) else 8
        if cueglFrame.frameType == cydriver.CU_EGL_FRAME_TYPE_ARRAY:
            eglFrame.frame.pArray[i] = <cudaArray_t>cueglFrame.frame.pArray[i]
        else:
            eglFrame.frame.pPitch[i].ptr = cueglFrame.frame.pPitch[i]
            eglFrame.frame.pPitch[i].pitch = eglFrame.planeDesc[i].pitch
            eglFrame.frame.pPitch[i].xsize = eglFrame.planeDesc[i].width
            eglFrame.frame.pPitch[i].ysize = eglFrame.planeDesc[i].height
    eglFrame.planeCount = cueglFrame.planeCount
    eglFrame.eglColorFormat = <cudaEglColorFormat><int>cueglFrame.eglColorFormat
    eglFrame.frameType = <cudaEglFrameType><int>cueglFrame.frameType
    return cudaSuccess

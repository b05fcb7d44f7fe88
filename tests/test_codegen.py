"""The generator: its small readers, parameter classification on a real header snippet, and the
determinism check (regenerating from the pinned headers reproduces the committed files)."""
import re
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from codegen import common, emit_c, emit_py, model, parse, resolve  # noqa: E402


def test_doc_params_joins_continuation_lines():
    doc = textwrap.dedent("""\
        \\brief Does things

        \\param dptr     - Returned device pointer
        \\param bytesize - Requested allocation
                           size in bytes

        \\return
        ::CUDA_SUCCESS
        """)
    assert parse.doc_params(doc) == {"dptr": "Returned device pointer",
                                     "bytesize": "Requested allocation size in bytes"}


def test_doc_groups_place_functions_and_types_in_their_groups():
    text = textwrap.dedent("""\
        /**
         * \\defgroup MOD Module Management
         * @{
         */
        /** \\brief Loads. */
        CUresult cuLoad(int x);
        /** \\brief Links, its return type on the line before. */
        CUresult CUDAAPI
        cuLink(int a,
               int b);
        int cuBare(void);
        typedef struct CUmod_st *CUmod;
        typedef enum __device_builtin__ CUkind_enum {
            CU_KIND_A = 0, /**< a member's comment */
            CU_KIND_B = 1
        } CUkind;
        /** \\ingroup QRY
         * \\brief Asks. */
        int cuAsk(void);
        /** @} */ /* END MOD */
        /** \\defgroup QRY Query */
        /** \\addtogroup MOD
         * @{ */
        /** @{ */
        int cuInner(void);
        /** @} */
        /** @} */
        /** @} */
        int cuOutside(void);
        /** \\ingroup QRY
         * \\brief Answers, with a member's comment before the name. */
        typedef enum {
            CU_ANSWER_YES = 1 /**< yes */
        } CUanswer;
        typedef int CUloose;
        """)
    order, where, types = parse.doc_groups(text)
    assert order == [("MOD", "Module Management"), ("QRY", "Query")]
    assert types == {"CUmod": "MOD", "CUkind_enum": "MOD", "CUkind": "MOD", "CUanswer": "QRY"}
    assert where == {"cuLoad": "MOD", "cuLink": "MOD", "cuBare": "MOD", "cuAsk": "QRY", "cuInner": "MOD"}


def test_versioned_and_per_thread_names():
    text = textwrap.dedent("""\
        #define cuMemAlloc                          cuMemAlloc_v2
        #define cuMemcpyHtoD                        __CUDA_API_PTDS(cuMemcpyHtoD_v2)
        #define cuStreamQuery                       __CUDA_API_PTSZ(cuStreamQuery)
        #define cuGraphInstantiate                  cuGraphInstantiateWithFlags
        #define CUDA_VERSION 13000
        """)
    assert parse.versioned_names(text) == {"cuMemAlloc_v2": "cuMemAlloc",
                                           "cuMemcpyHtoD_v2": "cuMemcpyHtoD",
                                           "cuGraphInstantiateWithFlags": "cuGraphInstantiate"}
    assert parse.ptds_names(text) == {"cuMemcpyHtoD": "_ptds", "cuStreamQuery": "_ptsz"}


def test_pfn_versions_pick_the_abi_of_the_declared_signature():
    text = textwrap.dedent("""\
        typedef CUresult (CUDAAPI *PFN_cuCtxCreate_v3020)(CUcontext *pctx, unsigned int flags, CUdevice_v1 dev);
        typedef CUresult (CUDAAPI *PFN_cuCtxCreate_v12050)(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev);
        typedef CUresult (CUDAAPI *PFN_cuMemcpyAsync_v7000_ptsz)(CUdeviceptr_v2 dst, CUdeviceptr_v2 src, size_t ByteCount, CUstream hStream);
        """)
    got = parse.pfn_versions(text)
    assert got["cuCtxCreate"] == [(3020, "", ["pctx", "flags", "dev"]),
                                  (12050, "", ["pctx", "ctxCreateParams", "flags", "dev"])]
    assert got["cuMemcpyAsync"] == [(7000, "_ptsz", ["dst", "src", "ByteCount", "hStream"])]


HEADER = textwrap.dedent("""\
    typedef enum cudaError_enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 } CUresult;
    typedef struct CUstream_st *CUstream;
    typedef unsigned long long CUdeviceptr_v2;
    typedef CUdeviceptr_v2 CUdeviceptr;
    typedef struct CUDA_THING_st { unsigned int width; CUstream stream; } CUDA_THING;
    #define CUDAAPI
    /**
     * \\brief Allocates
     * \\param dptr     - Returned device pointer
     * \\param bytesize - Requested allocation size in bytes
     */
    CUresult CUDAAPI cuThingAlloc(CUdeviceptr *dptr, size_t bytesize);
    /**
     * \\brief Reads a thing
     * \\param hStream - Stream
     * \\param thing   - Thing to read
     * \\param names   - Array of names
     * \\param count   - Number of names
     */
    CUresult CUDAAPI cuThingRead(CUstream hStream, const CUDA_THING *thing, const CUstream *names, unsigned int count);
    """)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    d = tmp_path_factory.mktemp("hdr")
    (d / "tiny.h").write_text(HEADER)
    defs = parse.run_pyclibrary(d, ["tiny.h"])
    raw = {"defs": defs, "docs": parse.doc_comments(HEADER), "versioned": {}, "ptds": {},
           "pfn": {}}
    return resolve.resolve(model.build(raw, "driver"))


def test_model_classifies_parameters(tiny_model):
    fns = {f.name: f for f in tiny_model.functions}
    alloc = [(p.name, p.role, p.conv) for p in fns["cuThingAlloc"].params]
    assert alloc == [("dptr", "out", "value_out"), ("bytesize", "in", "scalar")]
    read = [(p.name, p.role, p.conv) for p in fns["cuThingRead"].params]
    assert read == [("hStream", "in", "handle"), ("thing", "in", "struct_ptr"),
                    ("names", "in", "array"), ("count", "in", "scalar")]


@pytest.mark.parametrize("char_buffers, conv", [(False, "cstr"), (True, "buf_w")])
def test_a_library_entry_says_whether_char_pointers_are_buffers_it_fills(tmp_path, monkeypatch, char_buffers, conv):
    """libs.LIBS[lib]["char_buffers"]: a non-const char* is a buffer the library fills (NVRTC's
    getters), else a C string; a const one is a C string either way."""
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    from codegen import libs
    monkeypatch.setitem(libs.LIBS["driver"], "char_buffers", char_buffers)
    header = HEADER + "CUresult CUDAAPI cuThingName(char *name, const char *key);\n"
    (tmp_path / "tiny.h").write_text(header)
    raw = {"defs": parse.run_pyclibrary(tmp_path, ["tiny.h"]), "docs": parse.doc_comments(header),
           "versioned": {}, "ptds": {}, "pfn": {}}
    fn = {f.name: f for f in model.build(raw, "driver").functions}["cuThingName"]
    assert [(p.name, p.role, p.conv) for p in fn.params] == [("name", "in", conv), ("key", "in", "cstr")]


def test_a_getter_beside_its_size_query_checks_the_buffer_against_it(tmp_path):
    """`XGetY(h, void* buf)` beside `XGetYSize(h, size_t*)`: the getter's buffer is a caller buffer
    whose size the wrapper asks first (a short one is a ValueError, not a write past its end); a
    getter whose twin takes another handle, or no twin, is left alone."""
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    header = HEADER + textwrap.dedent("""\
        CUresult CUDAAPI cuThingGetBlob(CUstream h, void *blob);
        CUresult CUDAAPI cuThingGetBlobSize(CUstream h, size_t *size);
        CUresult CUDAAPI cuThingGetOther(CUstream h, void *other);
        CUresult CUDAAPI cuThingGetOtherSize(CUdeviceptr h, size_t *size);
        CUresult CUDAAPI cuThingGetLone(CUstream h, void *lone);
        CUresult CUDAAPI cuWidgetGet(CUstream h, void *widget);
        CUresult CUDAAPI cuWidgetSize(CUstream h, size_t *size);
        """)
    (tmp_path / "tiny.h").write_text(header)
    raw = {"defs": parse.run_pyclibrary(tmp_path, ["tiny.h"]), "docs": parse.doc_comments(header),
           "versioned": {}, "ptds": {}, "pfn": {}}
    fns = {f.name: f for f in model.build(raw, "driver").functions}
    assert fns["cuThingGetBlob"].size_query == "cuThingGetBlobSize"
    assert fns["cuThingGetBlob"].params[1].conv == "buf_w"
    assert fns["cuWidgetGet"].size_query == "cuWidgetSize"
    assert fns["cuThingGetOther"].size_query == fns["cuThingGetLone"].size_query == ""
    assert fns["cuThingGetOther"].params[1].conv != "buf_w"


def test_model_types_and_json(tiny_model):
    assert [e.name for e in tiny_model.enums] == ["CUresult"]
    assert ("CUstream", "") in tiny_model.handles
    assert ("CUdeviceptr", "CUdeviceptr_v2", "unsigned long long", 8, "u") in tiny_model.inttds
    (thing,) = [s for s in tiny_model.structs if s.name == "CUDA_THING_st"]
    assert [(f.name, f.cls) for f in thing.fields] == [("width", "scalar"), ("stream", "handle")]
    assert thing.aliases == [("CUDA_THING", "CUDA_THING_st")]
    assert '"cuThingAlloc"' in tiny_model.to_json()


def test_emitted_wrapper_releases_the_gil_and_returns_outputs(tiny_model):
    text = emit_py.emit_py(tiny_model)
    body = text[text.index("def cuThingAlloc("):]
    body = body[:body.index("\ndef ", 1)] if "\ndef " in body[1:] else body
    assert "def cuThingAlloc(bytesize):" in body
    # the argument is converted where an error can name it
    assert "        c_bytesize = bytesize\n    except (TypeError, ValueError, OverflowError):\n" \
           "        raise _arg_error('cuThingAlloc', ('bytesize',), 0) from None" in body
    assert "with nogil:" in body
    assert "return (_ok(), _new_int(CUdeviceptr" in body


ARRAYS = textwrap.dedent("""\
    typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
    typedef struct CUkern_st *CUkern;
    typedef struct CUres_st { unsigned int smCount; } CUres;
    typedef struct CUdesc_st { unsigned int width; } CUdesc;
    typedef struct cudaArr *cudaArr_t;
    typedef const struct cudaArr *cudaArr_const_t;
    #define CUDAAPI
    /**
     * \\param result   - Output array of \\p CUres resources
     * \\param nbGroups - Number of groups in \\p result
     * \\param input    - Input resource to split
     */
    CUresult CUDAAPI cuThingSplit(CUres *result, unsigned int nbGroups, const CUres *input);
    /**
     * \\param kernels    - Buffer where the kernel handles are returned to
     * \\param numKernels - Maximum number of kernel handles
     */
    CUresult CUDAAPI cuThingEnumerate(CUkern *kernels, unsigned int numKernels);
    /**
     * \\param pHandle - Returned kernel
     * \\param pDesc   - Array descriptor
     */
    CUresult CUDAAPI cuThingCreate(CUkern *pHandle, const CUdesc *pDesc);
    /**
     * \\param capabilities - Returned capability details of each requested operation
     * \\param operations   - Requested operations
     * \\param count        - Count of requested operations
     */
    CUresult CUDAAPI cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities, const int *operations, unsigned int count);
    CUresult CUDAAPI cudaThingCopy(cudaArr_t dst, cudaArr_const_t src);
    """)


@pytest.fixture(scope="module")
def arrays_model(tmp_path_factory):
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    d = tmp_path_factory.mktemp("arrays")
    (d / "arrays.h").write_text(ARRAYS)
    raw = {"defs": parse.run_pyclibrary(d, ["arrays.h"]), "docs": parse.doc_comments(ARRAYS), "versioned": {},
           "ptds": {}, "pfn": {}}
    return resolve.resolve(model.build(raw, "driver"))


def test_output_arrays_are_sized_by_their_count(arrays_model):
    roles = {(f.name, p.name): (p.role, p.conv, p.extra) for f in arrays_model.functions for p in f.params}
    # the doxygen text calls the output an array or buffer: a list of the count's length
    assert roles[("cuThingSplit", "result")] == ("out", "array_out", {"count": "nbGroups"})
    assert roles[("cuThingEnumerate", "kernels")] == ("out", "array_out", {"count": "numKernels"})
    # one struct read once, though the function has a count
    assert roles[("cuThingSplit", "input")] == ("in", "struct_ptr", {})
    # overrides.ARRAY_COUNT's entry of the driver's cuDeviceGetHostAtomicCapabilities holds for the
    # runtime's twin, whose text does not say "array"
    assert roles[("cudaDeviceGetHostAtomicCapabilities", "capabilities")] == ("out", "array_out", {"count": "count"})
    # "Array descriptor" is one descriptor (of a CUDA array), not a list
    assert roles[("cuThingCreate", "pDesc")] == ("in", "struct_ptr", {})


def test_const_handle_parameters_take_the_non_const_handle(arrays_model):
    assert arrays_model.const_handles == ["cudaArr_const_t"]
    takes = {i.cname: i.type for i in arrays_model.resolved.functions["cudaThingCopy"].inputs}
    assert takes["src"] == "cudaArr_const_t | cudaArr_t | int | None"
    assert takes["dst"] == "cudaArr_t | int | None"    # not the reverse


CYLEVEL_BASE = textwrap.dedent("""\
    typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
    typedef struct CUstream_st *CUstream;
    typedef enum CUlaunchAttributeID_enum { CU_LAUNCH_ATTRIBUTE_PRIORITY = 8 } CUlaunchAttributeID;
    #define CUstreamAttrID CUlaunchAttributeID
    CUresult cuThingSet(CUstream hStream, CUstreamAttrID attr);
    """)
CYLEVEL_GL = textwrap.dedent("""\
    typedef unsigned int GLuint;
    typedef enum CUGLDeviceList_enum { CU_GL_DEVICE_LIST_ALL = 1, CU_GL_DEVICE_LIST_NEXT = 3 } CUGLDeviceList;
    CUresult cuGLThing(GLuint buffer, CUGLDeviceList which);
    """)


def test_interop_types_and_macro_aliases_are_declared_at_the_cython_level(tmp_path):
    # Cython spells these with mangled names in the C-API signatures, as the reference package's
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    (tmp_path / "base.h").write_text(CYLEVEL_BASE)
    (tmp_path / "cudaGL.h").write_text(CYLEVEL_GL)   # an interop header, by its name
    defs, where = parse.run_pyclibrary(tmp_path, ["base.h", "cudaGL.h"], origins=True)
    raw = {"defs": defs, "docs": {}, "versioned": {}, "ptds": {}, "pfn": {},
           "spelled": parse.spelled_params(CYLEVEL_BASE + CYLEVEL_GL), "interop": parse.interop_names(where)}
    m = model.build(raw, "driver")
    assert m.cython_level == ["CUGLDeviceList", "CUstreamAttrID", "GLuint"]
    pxd = emit_c.emit_pxd(m)
    extern, own = pxd.split("\n# Declared here")
    own = own[:own.index("cdef enum:")]
    assert "\nctypedef unsigned int GLuint\n" in own
    assert "\nctypedef enum CUGLDeviceList:\n    CU_GL_DEVICE_LIST_ALL = 1\n    CU_GL_DEVICE_LIST_NEXT = 3\n" in own
    assert "\nctypedef CUlaunchAttributeID CUstreamAttrID\n" in own
    assert "GLuint" not in extern and "CUGLDeviceList" not in extern and "CUstreamAttrID" not in extern
    assert "    ctypedef enum CUlaunchAttributeID:" in extern
    # the parameter keeps the header's spelling, which the preprocessor hid from the parser
    assert "cdef CUresult cuThingSet(CUstream hStream, CUstreamAttrID attr)" in pxd
    assert "cdef CUresult cuGLThing(GLuint buffer, CUGLDeviceList which)" in pxd


def test_regeneration_reproduces_the_committed_files():
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    from codegen.__main__ import OUT, generate
    from headers.fetch import default_version, include_dir
    files = generate(include_dir(default_version()))     # the release committed in cuda_bindings/
    files.pop("REPORT.md")
    differ = [name for name, text in files.items() if (OUT / name).read_text() != text]
    assert not differ, f"regenerate with `python -m codegen`: {differ}"


def test_generated_code_never_names_a_lazy_class_directly(tiny_model):
    # Enum and struct classes exist only once the module's _Lazy has made them: code naming one
    # as a bare global would fail with NameError at call time.  The emitter refuses to write it.
    enum_name = tiny_model.enums[0].name
    ok = ["def f():", f'    """Returns a {enum_name}."""', f"    return _L.cls({enum_name!r})",
          f"    x = cy.{enum_name}  # {enum_name}"]
    emit_py.check_lazy_refs(ok, tiny_model)
    with pytest.raises(ValueError, match=enum_name):
        emit_py.check_lazy_refs(ok + [f"    return {enum_name}(0)"], tiny_model)


def test_snake_case_names():
    assert [common.snake_case(n) for n in ("IRVersion", "GetLinkedPtxSize", "LazyAddModuleToProgram", "Version")] == [
        "ir_version", "get_linked_ptx_size", "lazy_add_module_to_program", "version"]


@pytest.fixture(scope="module")
def nvvm_model():
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    from headers.fetch import default_version, include_dir
    return resolve.resolve(model.build(parse.read(include_dir(default_version()), "nvvm"), "nvvm"))


def test_nvvm_model_roles(nvvm_model):
    roles = {(f.name, p.name): (p.role, p.conv, p.extra) for f in nvvm_model.functions for p in f.params}
    # IR text or bitcode with its byte count: data, not a C string
    assert roles[("nvvmAddModuleToProgram", "buffer")] == ("in", "voidp", {"size": "size"})
    assert roles[("nvvmAddModuleToProgram", "name")] == ("in", "cstr", {})
    assert roles[("nvvmCreateProgram", "prog")][:2] == ("out", "value_out")
    assert roles[("nvvmDestroyProgram", "prog")][:2] == ("in", "handle_ref")       # overrides.PARAM_ROLE
    assert roles[("nvvmGetCompiledResult", "buffer")][:2] == ("in", "buf_w")       # caller buffer, size-checked
    assert roles[("nvvmCompileProgram", "options")] == ("in", "strlist", {"count_param": "numOptions"})
    assert roles[("nvvmIRVersion", "minorDbg")][:2] == ("out", "value_out")


def test_snake_case_layer_from_the_model(nvvm_model):
    text = emit_py.emit_py(nvvm_model)
    defs = {m.group(1): m.group(0) for m in re.finditer(r"(?ms)^def (\w+)\(.*?(?=^def |\Z)", text)}
    assert set(n for n in defs if not n.startswith("_")) == {
        "version", "ir_version", "create_program", "destroy_program", "add_module_to_program",
        "lazy_add_module_to_program", "compile_program", "verify_program", "get_compiled_result_size",
        "get_compiled_result", "get_program_log_size", "get_program_log", "get_error_string"}
    assert "class nvvmError(Exception):" in text and '"Result||SUCCESS=0,' in text
    # destroy consumes its handle, create makes one live again, every other handle argument is checked
    assert [n for n, body in defs.items() if "_consume(" in body] == ["destroy_program"]
    assert "_fresh(h0, &_CONSUMED)" in defs["create_program"]
    assert all("_live(prog, &_CONSUMED, 'prog', 'an NVVM program')" in body
               for n, body in defs.items() if not n.startswith("_") and re.match(r"def \w+\(prog\b", body))
    assert sum(1 for body in defs.values() if "_live(" in body) == 9
    # compile and verify failures carry the program log (overrides.ERROR_LOG), nothing else does
    assert sorted(n for n, body in defs.items() if "raise _error_log(" in body) == ["compile_program", "verify_program"]
    assert "_bptr(buffer, &c_buffer, c_size)" in defs["_nvvmAddModuleToProgram"]
    assert "return r[1].decode()" in defs["get_error_string"]


DRIVER_TYPES = textwrap.dedent("""\
    typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;
    typedef struct CUstream_st *CUstream;
    typedef struct CUkern_st *CUkernel;
    """)
RUNTIME_TYPES = textwrap.dedent("""\
    typedef enum cudaError { cudaSuccess = 0 } cudaError_t;
    struct cudaPitchedPtr { void *ptr; size_t pitch; size_t xsize; size_t ysize; };  /* (make_* helpers) */
    struct cudaPos { size_t x; size_t y; size_t z; };
    struct cudaExtent { size_t width; size_t height; size_t depth; };
    typedef struct CUstream_st *cudaStream_t;
    typedef struct CUkern_st *cudaKernel_t;
    typedef void (*cudaHostFn_t)(void *userData);
    typedef int VdpThing(int device, void **out);
    /**
     * \\brief Watches a stream
     * \\param stream   - Stream
     * \\param callback - Called back
     */
    cudaError_t cudaStreamWatch(cudaStream_t stream, int (*callback)(void *, void *));
    /**
     * \\brief Returns the version
     * \\param runtimeVersion - Returns the version
     */
    cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
    """)


def _tiny(tmp_path, lib, text):
    (tmp_path / f"{lib}.h").write_text(text)
    defs = parse.run_pyclibrary(tmp_path, [f"{lib}.h"])
    raw = {"defs": defs, "docs": parse.doc_comments(text), "versioned": {}, "ptds": {}, "pfn": {}}
    return model.build(raw, lib)


def test_handle_classes_derive_from_their_kind_and_from_the_driver_where_nvidias_do(tmp_path):
    """runtime.cudaStream_t derives from driver.CUstream (overrides.PEER_SUBCLASSES, a peer of the
    same C type), cimported from the driver's generated .pxd; cudaKernel_t, a peer too, does not;
    function pointer classes derive from _base._FuncPtr (compared by identity), a C function type
    from _FuncType (shown in decimal); an inline function pointer parameter is a void*."""
    pytest.importorskip("pyclibrary", reason="the generator's parser (pyclibrary) is not installed")
    models = {"driver": _tiny(tmp_path, "driver", DRIVER_TYPES), "runtime": _tiny(tmp_path, "runtime", RUNTIME_TYPES)}
    for m in models.values():
        m.cuda = "13.0"
        resolve.resolve(m, models)
    rt = models["runtime"]
    assert rt.resolved.bases == {"cudaStream_t": "driver.CUstream"}
    text = "\n".join(emit_py._int_classes(rt))
    assert "from cuda.bindings cimport driver as _driver" in text
    assert "cdef class cudaStream_t(_driver.CUstream):" in text
    assert "cdef class cudaKernel_t(_Handle):" in text
    assert "cdef class cudaHostFn_t(_FuncPtr):" in text and "cdef class VdpThing(_FuncType):" in text
    (watch,) = [f for f in rt.functions if f.name == "cudaStreamWatch"]
    assert [(p.name, p.conv) for p in watch.params] == [("stream", "handle"), ("callback", "voidp")]
    pxd = emit_py.emit_class_pxd(models["driver"], {"CUstream"})
    assert "cdef class CUstream(_Handle):" in pxd and "CUkernel" not in pxd

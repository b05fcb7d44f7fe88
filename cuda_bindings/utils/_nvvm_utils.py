"""Whether the installed libNVVM accepts a set of compiler options."""


def _probe_ir(nvvm):
    """The smallest NVVM IR module: one device function, no pointers (so every libNVVM reads it),
    declaring the IR version the library itself reports."""
    major, minor, debug_major, debug_minor = nvvm.ir_version()
    return (
        'target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-'
        'f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"\n'
        'target triple = "nvptx64-nvidia-cuda"\n\n'
        "define i32 @options_probe(i32 %x) {\nentry:\n  ret i32 %x\n}\n\n"
        "!nvvmir.version = !{!0}\n"
        f"!0 = !{{i32 {major}, i32 {minor}, i32 {debug_major}, i32 {debug_minor}}}\n"
    ).encode()


def check_nvvm_compiler_options(options):
    """Whether libNVVM compiles a small module with the compiler options `options` (a sequence of
    str or bytes, e.g. ``["-arch=compute_90", "-g"]``): True if it does, False if it refuses them
    (an unknown option or architecture, an option given twice).  TypeError for options that are
    not a sequence of str or bytes; NotSupportedError where libNVVM is not found."""
    if isinstance(options, (str, bytes, bytearray)):
        raise TypeError("check_nvvm_compiler_options() argument 'options' must be a sequence of options "
                        f"(a list of str), not a single {type(options).__name__}")
    try:
        options = list(options)
    except TypeError:
        raise TypeError("check_nvvm_compiler_options() argument 'options' must be a sequence of str or bytes, "
                        f"not {type(options).__name__}") from None
    for i, o in enumerate(options):
        if not isinstance(o, (str, bytes)):
            raise TypeError(f"check_nvvm_compiler_options() argument 'options': item {i} must be str or bytes, "
                            f"not {type(o).__name__}")
    from cuda.bindings import nvvm

    ir = _probe_ir(nvvm)
    prog = nvvm.create_program()
    try:
        nvvm.add_module_to_program(prog, ir, len(ir), "options_probe")
        try:
            nvvm.compile_program(prog, len(options), options)
        except nvvm.nvvmError:
            return False
        return True
    finally:
        nvvm.destroy_program(prog)

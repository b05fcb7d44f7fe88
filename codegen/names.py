"""How C names become Python names in the snake_case modules (nvJitLink, NVVM, and the struct-style
modules cuFile, NVML, nvFatbin, cuDLA): the rules of docs/library-modules.md ("Names").  Data and
text only: imports no other module of the generator."""
import keyword
import re

# Attributes of numpy.ndarray that a struct field would shadow in a numpy record: such a field gets
# a trailing `_` (`device_`, `size_`, `min_`), as in the reference package.
NDARRAY_ATTRS = frozenset("""T all any argmax argmin argpartition argsort astype base byteswap choose
clip compress conj conjugate copy ctypes cumprod cumsum data device diagonal dot dtype dump dumps
fill flags flat flatten getfield imag item itemset itemsize max mean min nbytes ndim newbyteorder
nonzero partition prod ptp put ravel real repeat reshape resize round searchsorted setfield setflags
shape size sort squeeze std strides sum swapaxes take tobytes tofile tolist tostring trace
transpose var view""".split())


def snake_case(name):
    """The functions' and parameters' snake_case: `_` before an upper-case letter that follows a
    lower-case letter or a digit, and before the last capital of a run that a lower-case letter
    follows (IRVersion -> ir_version, GetBAR1MemoryInfo -> get_bar1_memory_info)."""
    name = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def type_snake(name):
    """The types' and fields' snake_case: `_` before an upper-case letter that follows a lower-case
    letter, and before an upper-case letter that follows another and precedes a lower-case letter
    or a digit (FBCSessionInfo -> fbc_session_info, BAR1Memory -> ba_r1memory, bar1Size ->
    bar1size)."""
    name = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z0-9])", "_", name)
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", name).lower()


def function_name(cname, prefix, exceptions=None):
    """A C function's Python name: without the library prefix, in snake_case; NVML's `NvLink` and
    `P2P` are one word each (device_get_nvlink_state, device_get_p2p_status). `exceptions` maps
    C names to the reference's own spelling."""
    if exceptions and cname in exceptions:
        return exceptions[cname]
    base = cname[len(prefix):] if cname.startswith(prefix) else cname
    return snake_case(base.replace("NvLink", "Nvlink").replace("P2P", "P2p"))


def param_name(cname):
    """A C parameter's Python name (a keyword gets a trailing `_`)."""
    n = snake_case(cname)
    return n + "_" if keyword.iskeyword(n) else n


def field_name(cname):
    """A struct field's Python name: snake_case as for types, with a trailing `_` where numpy's
    arrays have an attribute of that name."""
    n = type_snake(cname)
    return n + "_" if n in NDARRAY_ATTRS or keyword.iskeyword(n) else n


def class_name(cname, prefixes):
    """A struct or enum type's Python name: without the library prefix and `_t`
    (nvmlMemory_v2_t -> Memory_v2, CudlaFence -> Fence)."""
    for p in prefixes:
        if cname.startswith(p) and len(cname) > len(p):
            cname = cname[len(p):]
            break
    cname = re.sub(r"_enum$", "", cname)
    return re.sub(r"_t$", "", cname)


def dtype_name(pyname):
    """The numpy dtype of a struct class: `<class in snake_case>_dtype` (`_py_anon_pod1_dtype` for
    the anonymous ones)."""
    return (pyname if pyname.startswith("_") else type_snake(pyname)) + "_dtype"


def member_names(names, prefixes, fixed=None):
    """An enum's member names without the prefix they share: the longest run of `_`-separated
    words every member starts with, when what is left of each is an identifier; otherwise (and
    for a single member) only the library's prefix (`prefixes`, tried in order).  `fixed`, when
    given, is the prefix to take off instead.  cuDLA's camelCase members (cudlaErrorInvalidParam)
    become ERROR_INVALID_PARAM."""
    names = list(names)
    if names and all(re.match(r"^[a-z]", n) for n in names):
        out = []
        for n in names:
            for p in prefixes:
                if n.startswith(p):
                    n = n[len(p):]
                    break
            out.append(type_snake(n).upper())
        return out
    if fixed:
        return [n[len(fixed):] if n.startswith(fixed) else n for n in names]

    def lib_only(n):
        for p in prefixes:
            if n.startswith(p) and len(n) > len(p):
                return n[len(p):]
        return n

    if len(names) > 1:
        parts = [n.split("_") for n in names]
        k = 0
        while all(len(p) > k + 1 for p in parts) and len({p[k] for p in parts}) == 1:
            k += 1
        rest = ["_".join(p[k:]) for p in parts]
        if k and all(r and not r[0].isdigit() for r in rest) and len(set(rest)) == len(rest):
            return rest
    return [lib_only(n) for n in names]


def rewritten_snake(cname, prefix, rewrites):
    """A C function's Python name in the style of cuda.bindings._v2: without the library prefix, in
    snake_case after the `rewrites` ((pattern, replacement) pairs, overrides.V2_NAMES)."""
    base = cname[len(prefix):] if cname.startswith(prefix) else cname
    for pattern, repl in rewrites:
        base = re.sub(pattern, repl, base)
    return snake_case(base)


def camel_class(cname, prefixes, words):
    """A struct's or enum's Python name in the style of cuda.bindings._v2: without the library
    prefix and the _st, _enum, _t endings, in CamelCase, a version ending (_v2) kept: a name in
    capitals a capitalised word per `_`-separated part (CUDA_ARRAY_DESCRIPTOR_v2 ->
    ArrayDescriptor_v2), another its parts with their first letter raised (CUarray_format ->
    ArrayFormat); `words` gives other spellings of some parts (MEMCPY -> MemCpy)."""
    m = re.match(r"(.*?)((?:_v\d+)?)$", re.sub(r"(_st|_enum|_t)$", "", cname))
    base, version = m.group(1), m.group(2)
    for p in prefixes:
        if base.startswith(p) and len(base) > len(p):
            base = base[len(p):]
            break
    parts = [w for w in base.split("_") if w]
    screaming = base == base.upper()
    out = []
    for w in parts:
        if screaming:       # a word of `words` that begins the part, the rest capitalised
            key = next((k for k in words if k.isupper() and w.startswith(k)), None)
            out.append(words[key] + w[len(key):].lower() if key else w.capitalize())
        else:               # `words` found anywhere in the part
            for k, v in words.items():
                w = w.replace(k, v)
            out.append(w[0].upper() + w[1:])
    return "".join(out) + version

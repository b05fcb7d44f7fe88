"""Stage 4, cuda.bindings._v2.<lib>: the second API of the driver and NVRTC, which NVIDIA's package
has from 13.4 on (docs/v2.md), generated from the library's model in the struct style of the
cuFile and NVML modules (libs.config(lib, "v2"): the same records, enums and exception tables,
emit_py), with its functions `cpdef`: typed C parameters and results, so that the module has a
C-API whose signature strings are NVIDIA's, and Cython's own argument conversions (its
TypeError and OverflowError) as NVIDIA's have them.

A function returns its outputs (one, or a tuple of several; None where it has none) and raises
the exception class of a failed status. Its parameters and result are typed by the rules of
`_Sig`; overrides.V2_SIGNATURES holds where NVIDIA's package types them otherwise, and
overrides.V2_NAMES how the names are made."""
import copy

from . import docstrings
from . import overrides as ov
from .common import HEADER, bare, public_function, public_param, twin_value
from .emit_py import _classes_at_import, _enum_table, _keep_gil_test, _records_errors, _records_tables
from .libs import module, of
from .model import SCALARS
from .pyapi import v2_docstring, v2_refs, v2_types
from .stubs import _enum_class, _fields, _records_errors as _stub_errors
from . import resolve

# the C results whose `except?` value is -1 (the others' is 0), as NVIDIA's module declares them
_EXCEPT_MINUS_ONE = ("int", "float", "double", "long long")


def v2_model(model, models):
    """A copy of a library's model as its _v2 module sees it (resolved with libs.config(lib, "v2"))."""
    m = copy.copy(model)
    m.variant = "v2"
    return resolve.resolve(m, models)


def emit(model):
    """{file path: text} of cuda.bindings._v2.<lib> (model: v2_model's)."""
    lib = model.lib
    sigs = _sigs(model)
    return {f"_v2/{lib}.pyx": _pyx(model, sigs), f"_v2/{lib}.pxd": _pxd(model, sigs), f"_v2/{lib}.pyi": _pyi(model, sigs)}


def _sigs(model):
    sigs = [s for s in (_Sig(model, fn) for fn in model.functions if _in_v2(fn)) if s.ok]
    return sigs + _second_forms(model, {s.name for s in sigs})


def _second_forms(model, made):
    """The second functions of C functions whose arrays NVIDIA's package also takes as buffers
    (overrides.V2_SIGNATURES "buffers": memcpy_batch_async beside memcpy_batch_async_v2); not
    where the release has a function of that name itself (12.9's cuMemcpyBatchAsync)."""
    forms = [(fn, ov.V2_SIGNATURES["buffers"][fn.name][0]) for fn in model.functions
             if _in_v2(fn) and ov.V2_SIGNATURES["buffers"].get(fn.name, (None,))[0] not in (None, *made)]
    return [s for s in (_Sig(model, fn, name) for fn, name in forms) if s.ok]


def report(model):
    """The lines of REPORT.md about cuda.bindings._v2.<lib> (model: v2_model's)."""
    made = {s.fn.name for s in _sigs(model)}
    wanted = [fn.name for fn in model.functions if _wanted(fn)]
    rn = model.resolved.records
    return [f"## _v2.{model.lib}", "",
            f"- {len(made)} of {len(wanted)} functions, {len(rn.enums) + len(ov.DEFINE_ENUMS_OF(model))} enums, "
            f"{len(rn.layout)} struct classes, {len(rn.errors)} exception classes",
            "- not made yet (their shape; docs/v2.md): " + (", ".join(n for n in wanted if n not in made) or "none"), ""]


def _wanted(fn):
    """Whether the module is to have fn: a function the tuple style has, one that returns text, or an
    entry point of the headers' internal section that NVIDIA's _v2 has (V2_SIGNATURES "internal")."""
    return ((fn.python or _text_result(fn) or fn.name in ov.V2_SIGNATURES["internal"])
            and fn.name not in ov.V2_NAMES["left_out"])


def _in_v2(fn):
    return _wanted(fn) and fn.name not in ov.V2_SIGNATURES["not_yet"]


def package_init():
    return '"""cuda.bindings._v2: the second API of the driver and NVRTC (docs/v2.md)."""\n'


class _Sig:
    """One function's cpdef signature and body: `params` [(C type or "" for an object, name,
    default or None)], `lines` the conversions of the arguments, `cargs` {C parameter: the C
    argument}, `outs` [(declarations, returned expression, C type)], `pre` the lines before the call
    (a size query), `ret` the result's C type (object, tuple, int, ...); `ok` False where a
    parameter or output is of a kind this module does not take yet (the function is then left
    out)."""

    def __init__(self, model, fn, buffer_form=None):
        self.m, self.fn, self.L = model, fn, of(model)
        self.cy = f"cy{model.lib}"
        self.name = buffer_form or public_function(fn, self.L)
        # arrays taken as buffers, their counts their lengths (_buffer_arrays)
        self.buffered = _buffer_arrays(fn) if buffer_form or ov.V2_SIGNATURES["buffers"].get(fn.name, ("",))[0] is None else {}
        self.doc_types = {}     # {parameter or output: its type in the docstring}, where the header's is not it
        self.ok = fn.ret == self.L["status"] or _text_result(fn)
        self.params, self.lines, self.cargs, self.outs, self.pre = [], [], {}, [], []
        # a count the conversion of a list of strings gives (nvrtcCreateProgram's numHeaders)
        self.counted = {p.extra["count_param"]: p for p in fn.params if p.conv == "strlist" and "count_param" in p.extra}
        self.counted.update({count: arrays[0] for count, arrays in self.buffered.items()})
        # a count the library gives and takes (size_t *numNodes): asked for first, then the arrays
        # of that length filled (cuGraphGetNodes)
        self.filled = _filled_counts(fn)
        # the parameters of an attribute-typed value that the value's conversion fills (_attr_value)
        self.attr_made = _attr_made(fn)
        # lengths that size another output, neither taken nor returned (_given_lengths)
        self.given = self._given_lengths()
        for p in fn.params:
            key = (fn.name, p.name)
            if p.name in self.counted or self._other_shape(p):
                continue
            if p.conv in ("attr", "attr_list") or p.name in self.attr_made:
                self._attr_value(p)
                continue
            if p.name in self.filled:
                self.cargs[p.name] = "&_n" if p.ptr else "_n"
                continue
            if p.role == "hidden":
                self.ok = False     # a count the call asks for itself: not yet
            elif key in ov.V2_SIGNATURES["output_addresses"]:
                py = public_param(p, self.L)
                self.arg("intptr_t", py)
                # the library writes there: an address in the first page would crash it
                self.lines += [f"if <uintptr_t>{py} - 1 < 4095:", f"    _first_page_address({py}, {py!r})"]
                self.cargs[p.name] = f"<{self._ctype(p)}>{py}"
            elif p.role == "in" and key not in ov.V2_SIGNATURES["outputs"]:
                self._in(p)
            else:
                self._out(p)
        if self.filled:
            self._query_count()
        for p in fn.params:
            if p.conv == "attr_list":
                self._attr_list(p)
        n = len(self.outs)
        self.ret = "object" if n == 0 else self.outs[0][2] if n == 1 else "tuple"
        if _text_result(fn):
            self.ret = "str"
        elif fn.name in ov.STATUS_RESULT:
            self.ret = "int"

    def arg(self, ctype, py, default=None):
        self.params.append((ctype, py, default))

    # ---- inputs

    def _ctype(self, p, ptr=None):
        """p's C type as cy<lib>'s declarations spell it (qualified)."""
        ptr = p.ptr if ptr is None else ptr
        b = bare(p.ctype)
        t = SCALARS[b][0] if b in SCALARS else f"{self.cy}.{b}" if b != "void" else "void"
        return ("const " if p.const else "") + t + "*" * ptr

    def _in(self, p):
        py, c, key = public_param(p, self.L), p.conv, (self.fn.name, p.name)
        cast = f"<{self._ctype(p)}>"
        if self._own_in(p, py):
            return
        if key in ov.V2_SIGNATURES["types"]:
            self.arg(ov.V2_SIGNATURES["types"][key], py)
            self.cargs[p.name] = cast + py
        elif c == "struct_val" and key in ov.V2_SIGNATURES["address"]:
            self.arg("intptr_t", py)
            self.cargs[p.name] = f"(<{self._ctype(p, 1)}>{py})[0]"
        elif c == "scalar":
            self.arg(SCALARS[bare(p.ctype)][0], py)
            self.cargs[p.name] = py
        elif c in ("enum", "inttd"):
            self.arg("int" if c == "enum" else self._int_type(bare(p.ctype)), py)
            self.cargs[p.name] = cast + py
        elif c == "handle_ref":
            # the handle itself (as a create call returned it); the call gets the address of a copy
            self.arg("intptr_t", py)
            self._first_page(p, py)
            self.lines.append(f"cdef {self._ctype(p, p.ptr - 1)} _c_{py} = <{self._ctype(p, p.ptr - 1)}>{py}")
            self.cargs[p.name] = f"&_c_{py}"
        elif c in ("handle", "jitvalues", "voidpp") or (
                c in ("voidp", "array", "buf_w", "struct_ptr") and key in ov.V2_SIGNATURES["address"]):
            self.arg("intptr_t", py)
            if c == "handle":
                self._first_page(p, py)
            self.cargs[p.name] = cast + py
        elif c == "buf_w" and self.fn.size_query:
            self._bytes_result(p, py)
        elif c in ("cstr", "voidp", "unknown", "struct_ptr", "struct_val", "array", "kparams", "strlist"):
            self._object_in(p, py, cast)
        else:
            self.ok = False

    def _first_page(self, p, py):
        """The guard of a handle the library dereferences (overrides.v2_first_page): a value in the
        first page of memory, where no object lies, is refused with ValueError instead of crashing
        the library, and so is a negative one (in the upper half of the address space, never a
        process's memory; the tuple style refuses it too: a handle cannot be negative); 0 (NULL)
        is the library's to answer.  Two C comparisons on the way through."""
        what = ov.v2_first_page(self.fn.name, bare(p.ctype))
        if what is None:
            return
        unless = ov.HANDLE_READ_UNLESS_NULL.get((self.fn.name, p.name))
        test = f"{py} < 4096 and {py} != 0"
        if unless:
            test = f"{public_param(next(q for q in self.fn.params if q.name == unless), self.L)} != 0 and " + test
        self.lines += [f"if {test}:", f"    _first_page_handle({py}, {py!r}, {what!r})"]

    def _object_in(self, p, py, cast):
        """An input NVIDIA's module takes as a Python object, converted by _v2_common.pxi."""
        c, key = p.conv, (self.fn.name, p.name)
        v = f"_c_{py}"
        if c == "struct_ptr" or (c == "array" and p.cls == "struct"):
            # a struct object (its address: int() of it), an int address, or None (NULL)
            self.lines.append(f"cdef intptr_t {v} = _struct_address({py})")
        elif c == "struct_val":
            cls = self._record_class(p)
            if cls is None:
                self.ok = False
                return
            self.lines.append(f"cdef _Record {v} = _record_of({py}, _L.cls({cls!r}))")
            cast, v = "", f"(<{self._ctype(p, 1)}>{v}._ptr)[0]"
        elif c == "cstr" and ov.V2_SIGNATURES["text"].get(key) == "path":
            self.lines += [f"cdef object _b_{py} = _path_arg({py})", f"cdef void* {v} = _cstr_address(_b_{py})"]
        elif c == "cstr" and key in ov.V2_SIGNATURES["text"]:
            kind = ov.V2_SIGNATURES["text"][key]
            self.lines += [f"cdef bytes _b_{py} = _text_arg({py}, {py!r}, {kind!r})",
                           f"cdef const char* {v} = NULL if _b_{py} is None else <const char*>_b_{py}"]
        elif c == "cstr":
            # text: a buffer, an int address (not in the first page, where the library would read
            # it and crash), or None
            self.lines.append(f"cdef void* {v} = _cstr_address({py})")
        elif c in ("voidp", "unknown"):
            # a buffer (its memory; writable where the library writes it), an int address, or None
            self.lines.append(f"cdef void* {v} = _buffer_address({py}, {c == 'voidp' and not p.const})")
        elif c == "array":
            kind, es = self._elem(p)
            self.lines += [f"cdef _Buf _k_{py} = _v2_array({py}, {kind!r}, {es})", f"cdef void* {v} = _bufptr(_k_{py})"]
        elif c == "kparams":
            self.lines += [f"cdef void* {v}", f"cdef _Buf _k_{py} = _kernel_params({py}, &{v})"]
        else:       # strlist: a list of bytes, its length the count parameter
            count = next(q for q in self.fn.params if q.name == p.extra["count_param"])
            self.lines += [f"cdef int _n_{py} = 0", f"cdef object _k_{py} = _bytes_list({py}, <char***>&{v}, &_n_{py})"]
            self.lines.insert(0, f"cdef char** {v} = NULL")
            self.cargs[count.name] = f"<{self._ctype(count)}>_n_{py}"
            self.arg("", py, "None")
            self.cargs[p.name] = f"<{self._ctype(p)}>{v}"
            return
        typed = "bytes" if key in ov.V2_SIGNATURES["bytes"] else ""
        self.arg(typed, py)
        self.cargs[p.name] = cast + v

    def _bytes_result(self, p, py):
        """A buffer the library fills, of the size its size query gives (nvrtcGetPTX): the result."""
        q = next(f for f in self.m.functions if f.name == self.fn.size_query)
        args = ", ".join(self.cargs.get(x.name, "&_n") for x in q.params)
        self.pre += ["cdef size_t _n = 0", "with nogil:", f"    _status = {self.cy}.{q.name}({args})",
                     "if _status != 0:", "    _raise(_status)", "cdef bytes _o = _new_bytes(_n)",
                     "cdef char* _po = _o"]
        self.cargs[p.name] = "_po"
        self.outs.append(([], "_o", "bytes"))

    def _record_class(self, p):
        """The record class of a struct parameter or output, or None where the module has none."""
        rn = self.m.resolved.records
        cls = rn.cls.get(bare(p.ctype))
        return cls if cls in rn.slot else None

    def _elem(self, p):
        """(_base._array's kind code, the item's C size) of an array parameter's items."""
        b = bare(p.ctype)
        if p.cls == "scalar":
            cy, size, k = SCALARS[b]
            return f"{k}{size}", str(size)
        if p.cls == "enum":
            return "e", "4"
        if p.cls == "inttd":
            n = next(x for x in self.m.inttds if x[0] == b)
            return f"{n[4]}{n[3]}", str(n[3])
        return "h", "sizeof(void*)"

    def _int_type(self, name):
        """The C type of an integer typedef's parameter or result: 64-bit ones are uint64_t, the
        graphics interop ones keep their name (cydriver.GLuint), the others their base type."""
        for n, parent, cy, size, k in self.m.inttds:
            if n == name:
                if name in self.m.cython_level:
                    return f"{self.cy}.{name}"
                if size == 8:
                    return "uint64_t" if k == "u" else "int64_t"
                return cy
        raise KeyError(name)

    # ---- attribute-typed values (overrides.V2_ATTRIBUTES)

    def _attr_value(self, p):
        """A parameter of an attribute-typed value: the value (returned, or converted from the
        argument), the attribute list and data sizes of a call that reads several (their Python
        arguments, in the C order; converted after the loop, _attr_list), a size the conversion
        gives (cuCoredumpGetAttribute's), a count of the list."""
        py = public_param(p, self.L)
        role = self.attr_made.get(p.name)
        if role == "list":
            self.arg("", py)
        elif role == "size":
            value = next(q for q in self.fn.params if q.conv == "attr")
            self.cargs[p.name] = f"&_v_{public_param(value, self.L)}.size"
        elif role == "count":
            lst = next(q for q in self.fn.params if q.conv == "attr_list")
            self.cargs[p.name] = f"<{self._ctype(p)}>_v_{public_param(lst, self.L)}.n"
        elif p.extra.get("enum") not in ov.V2_ATTRIBUTES["what"]:
            self.ok = False     # a value typed by an enum V2_ATTRIBUTES has no words for: not made
        elif p.conv == "attr" and p.role == "out":
            self._attr_out(p, py)
        elif p.conv == "attr":
            self._attr_in(p, py)

    def _attr_table(self, p):
        """The name of the module's {member: kind} table of p's attribute enum, and its words."""
        en = p.extra["enum"]
        return f"_V2_ATTR_{en}", ov.V2_ATTRIBUTES["what"][en]

    def _attr_out(self, p, py):
        """The value a getter writes: storage of the attribute's kind (or of the caller's data size),
        returned as _attr_result makes it; a C number where every member has one kind of it
        (cuDeviceGetGraphMemAttribute: unsigned long long)."""
        table, what = self._attr_table(p)
        attr = public_param(next(q for q in self.fn.params if q.name == p.extra["attr"]), self.L)
        size = next((public_param(q, self.L) for q in self.fn.params if q.name == p.extra["size"]), None)
        v = f"_v_{py}"
        self.lines.append(f"cdef _AttrValue {v} = _attr_storage(_attr_kind({table}, {attr}, {what!r}), "
                          f"{size or 0}, {size is not None})")
        self.cargs[p.name] = f"{v}.ptr"
        kinds = set(attribute_kinds(self.m, p.extra["enum"]).values())
        self.doc_types[py] = " | ".join(dict.fromkeys(_kind_type(k) for k in sorted(kinds, key=lambda k: (isinstance(k, tuple), str(k)))))
        if size is None and kinds == {"Q"}:
            self.outs.append(([], f"(<uint64_t*>{v}.ptr)[0]", "unsigned long long"))
        else:
            self.outs.append(([], f"_attr_result({v})", "object"))

    def _attr_in(self, p, py):
        """The value a setter reads: converted from the Python value where the call takes its size
        too (cuCoredumpSetAttribute); else where it lies, as NVIDIA's takes it: a buffer, an int
        address or None for a const void* (cuPointerSetAttribute), an int address for the others.
        An address in the first page of memory is refused: the library would read there."""
        cast = f"<{self._ctype(p)}>"
        if any(r == "size" for r in self.attr_made.values()):
            table, what = self._attr_table(p)
            attr = public_param(next(q for q in self.fn.params if q.name == p.extra["attr"]), self.L)
            v = f"_v_{py}"
            self.lines += [f"cdef _AttrValue {v} = _attr_storage(_attr_kind({table}, {attr}, {what!r}), 0, False)",
                           f"_attr_set({v}, {py})"]
            self.arg("", py)
            self.cargs[p.name] = f"{v}.ptr"
        elif p.const:
            self.lines += [f"cdef void* _c_{py} = _buffer_address({py}, False)",
                           f"if <uintptr_t>_c_{py} - 1 < 4095:", f"    _first_page_value(<intptr_t>_c_{py}, {py!r})"]
            self.arg("", py)
            self.cargs[p.name] = f"{cast}_c_{py}"
        else:
            self.lines += [f"if <uintptr_t>{py} - 1 < 4095:", f"    _first_page_value({py}, {py!r})"]
            self.arg("intptr_t", py)
            self.cargs[p.name] = f"{cast}{py}"

    def _attr_list(self, p):
        """The values of a call that reads several attributes (cuPointerGetAttributes): the
        attribute list (and the data sizes) converted, storage for each value, [] without a call
        for none, a list of the values."""
        table, what = self._attr_table(p)
        name = {q.name: public_param(q, self.L) for q in self.fn.params}
        sizes = p.extra["sizes"]
        names = f"{name[sizes]} and {name[p.extra['attr']]}" if sizes else ""
        v = f"_v_{name[p.name]}"
        self.lines += [f"cdef _AttrList {v} = _attr_list({table}, {what!r}, {name[p.extra['attr']]}, "
                       f"{name[sizes] if sizes else None}, {bool(sizes)}, {names!r})",
                       f"if {v}.n == 0:", "    return []"]
        attr = next(q for q in self.fn.params if q.name == p.extra["attr"])
        self.cargs[attr.name] = f"<{self._ctype(attr)}>{v}.attrs"
        if sizes:
            self.cargs[sizes] = f"{v}.sizes"
        self.cargs[p.name] = f"{v}.ptrs"
        self.outs.append(([], f"_attr_results({v})", "object"))

    # ---- outputs

    def _out(self, p):
        py = public_param(p, self.L)
        b, c = bare(p.ctype), p.conv
        var = f"_o_{py}"
        self.cargs[p.name] = f"&{var}"
        t = self._ctype(p, p.ptr - 1)
        if self._own_out(p, py, var):
            return
        if c == "handle_ref" or (c == "value_out" and p.cls in ("handle", "inttd", "enum")):
            r = "intptr_t" if p.cls == "handle" else "int" if p.cls == "enum" else self._int_type(b)
            self.outs.append(([f"cdef {t} {var}"], f"<{r}>{var}", r))
        elif c == "value_out" and b in SCALARS:
            self.outs.append(([f"cdef {SCALARS[b][0]} {var}"], var, SCALARS[b][0]))
        elif c == "voidp_out":
            self.outs.append(([f"cdef void* {var}"], f"<intptr_t>{var}", "intptr_t"))
        elif c in ("struct_out", "struct_ptr") and self._record_class(p):
            cls = self._record_class(p)
            slot = self.m.resolved.records.slot[cls]
            self.cargs[p.name] = f"<{self._ctype(p)}>{var}._ptr"
            self.outs.append(([f"cdef _Record {var} = _new_record_at(_L, {slot}, {cls!r})"], var, "object"))
        elif c == "cstr_out":         # text the library keeps: bytes (the error strings: str)
            text = self.fn.name in ov.V2_SIGNATURES["str_results"]
            self.outs.append(([f"cdef const char* {var} = NULL"], f"_text0({var})" if text else f"_cbytes({var})",
                              "str" if text else "bytes"))
        elif c == "value_inout" and (p.cls in ("scalar", "enum") or b in SCALARS):
            r = "int" if p.cls == "enum" else SCALARS[b][0]
            self.arg(r, py)
            self.outs.append(([f"cdef {t} {var} = <{t}>{py}"], f"<{r}>{var}", r))
        elif c == "strbuf":
            # text the library writes into a buffer of the length the caller gives: the whole
            # buffer, zeroed first (NUL-padded text), as NVIDIA's returns it
            n = public_param(next(q for q in self.fn.params if q.name == p.extra["len"]), self.L)
            self.outs.append(([f"cdef bytes _b_{py} = _new_zeroed_bytes({n} if {n} > 0 else 0)",
                               f"cdef char* {var} = _b_{py}"], f"_b_{py}", "bytes"))
            self.cargs[p.name] = var
        elif c == "array_out" and p.ctype == "char" and isinstance(p.extra.get("count"), int):
            # a fixed number of bytes the library writes (cuDeviceGetLuid's 8)
            k = p.extra["count"]
            self.outs.append(([f"cdef char {var}[{k}]"], f"{var}[:{k}]", "bytes"))
            self.cargs[p.name] = var
        elif c == "voidp_out_val":    # an int the library writes where the pointer points (a file descriptor)
            self.outs.append(([f"cdef int {var} = 0"], var, "int"))
        elif c == "array_out" and p.extra.get("count") in self.filled and p.cls in ("handle", "struct"):
            self._filled_array(p, var)
        elif c == "array_out" and str(p.extra.get("count", "")).startswith("call:") and p.cls == "scalar":
            self._counted_array(p, var, p.extra["count"][len("call:"):])
        else:
            self.ok = False

    def _counted_array(self, p, var, count_fn):
        """An array the library fills, of the length another entry point gives (nvrtcGetSupportedArchs):
        a memoryview of a Cython array of its items, as NVIDIA's module returns it."""
        b = bare(p.ctype)
        t, (_, size, k) = SCALARS[b][0], SCALARS[b]
        self.pre += ["cdef int _n = 0", "with nogil:", f"    _status = {self.cy}.{count_fn}(&_n)",
                     "if _status != 0:", "    _raise(_status)",
                     f"cdef view.array _a = view.array(shape=(max(_n, 1),), itemsize=sizeof({t}), format={_FORMATS[k, size]!r})",
                     f"cdef {t}[::1] {var} = _a"]
        self.cargs[p.name] = f"&{var}[0]"
        self.outs.append(([], f"{var}[:_n]", "object"))

    def _query_count(self):
        """The call that asks for the length of the arrays a filled count gives (the arrays NULL)
        before they are made (_filled_array), in `pre`."""
        arrays = {p.name for p in self.fn.params if p.conv == "array_out" and p.extra.get("count") in self.filled}
        count = next(p for p in self.fn.params if p.name in self.filled)
        q, cargs = self.fn, self.cargs
        if self.fn.name in ov.V2_SIGNATURES["count_calls"]:
            # the other function's output is the count, its other parameters this one's of that name
            q = next(f for f in self.m.functions if f.name == ov.V2_SIGNATURES["count_calls"][self.fn.name])
            cargs = {p.name: "&_n" if p.role == "out" else self.cargs[p.name] for p in q.params}
        args = ", ".join("NULL" if p.name in arrays else cargs[p.name] for p in q.params)
        self.pre[:0] = [f"cdef {self._ctype(count, 0)} _n = 0", "with nogil:", f"    _status = {self.cy}.{q.name}({args})",
                        "if _status != 0:", "    _raise(_status)"]

    def _filled_array(self, p, var):
        """An array the library fills, of the length the first call gave: handles as a memoryview
        of intptr_t, structs as a record of that many, each owning its memory; cut to the length the
        second call gives."""
        if p.cls == "struct":
            cls = self._record_class(p)
            if cls is None:
                self.ok = False
                return
            self.pre.append(f"cdef _Record {var} = _new_record(_L.cls({cls!r}), _n)")
            self.cargs[p.name] = f"<{self._ctype(p)}>{var}._ptr"
        else:
            self.pre += [f"cdef view.array _a_{var} = view.array(shape=(max(_n, 1),), itemsize=sizeof(intptr_t), "
                         f"format={_FORMATS['i', 8]!r})", f"cdef intptr_t[::1] {var} = _a_{var}"]
            self.cargs[p.name] = f"<{self._ctype(p)}>&{var}[0]"
        self.outs.append(([], f"_first({var}, _n)", "object"))

    # ---- outputs of other shapes (and the inputs that come with them)

    def _other_shape(self, p):
        """Takes p (True) where it is one of these shapes, each of a few functions: an array the
        library keeps, a sized image, a fixed-length array, an array filled up to a capacity, the
        lengths that size them; an optional value in and out; a C string taken as bytes only."""
        key, sg = (self.fn.name, p.name), ov.V2_SIGNATURES
        py = public_param(p, self.L)
        var = f"_o_{py}"
        if p.name in self.given:
            if self.given[p.name] is None:  # written by the call, not returned: another output's length
                self.lines.append(f"cdef {self._ctype(p, p.ptr - 1)} {var} = 0")
                self.cargs[p.name] = f"&{var}"
            else:                           # a capacity the call is given (not a parameter)
                self.cargs[p.name] = str(self.given[p.name])
        elif p.conv == "array_ref_out":
            return self._kept_array(p, var)
        elif key in sg["sized_results"]:
            # an image the library keeps, of the size another output gives: a copy as bytes
            size = "_o_" + public_param(self._param(sg["sized_results"][key]), self.L)
            self.outs.append(([f"cdef void* {var} = NULL"], f"_sized_bytes({var}, {size})", "bytes"))
            self.cargs[p.name] = f"&{var}"
        elif key in sg["fixed_arrays"]:     # a C array of that many numbers: a list of them
            self.outs.append(([f"cdef {self._ctype(p, 0)} {var}[{sg['fixed_arrays'][key]}]"], var, "list"))
            self.cargs[p.name] = var
        elif key in sg["capacities"]:
            # an array filled up to its capacity, of as many as another output says (no more than
            # the capacity): a numpy array of them
            cap, written = sg["capacities"][key]
            n = "_o_" + public_param(self._param(written), self.L)
            self.outs.append(([f"cdef {self._ctype(p, 0)} {var}[{cap}]"],
                              f"_numbers_of(<void*>{var}, min({n}, {cap}), {self._elem(p)[0]!r})", "object"))
            self.cargs[p.name] = var
            self.doc_types[py] = "numpy.ndarray"
        elif key in sg["optional_inout"]:
            self._optional_inout(p, py, var)
        elif sg["text"].get(key) == "bytes":   # Cython's conversion: TypeError for None or another type
            self.arg("bytes", py)
            self.lines.append(f"cdef const char* _c_{py} = {py}")
            self.cargs[p.name] = f"_c_{py}"
        else:
            return False
        return True

    # ---- the shapes of arrays and outputs NVIDIA's package makes by hand

    def _own_in(self, p, py):
        """An input of these shapes: an array taken as a buffer (_buffer_inputs, made at the
        first), or an input also returned (V2_SIGNATURES "returned_inputs"); False otherwise."""
        key = (self.fn.name, p.name)
        if p.conv == "array" and p.extra.get("count_param") in self.buffered:
            self.arg("", py)
            self.doc_types[py] = "Buffer" + (" | None" if p.name in ov.V2_SIGNATURES["buffers"][self.fn.name][1] else "")
            if p is next(iter(self.buffered.values()))[0]:
                self._buffer_inputs()
            self.cargs[p.name] = f"<{self._ctype(p)}>_v_{py}.buf"
            return True
        if key in ov.V2_SIGNATURES["returned_inputs"]:
            self.arg("intptr_t", py)
            self.cargs[p.name] = f"<{self._ctype(p)}>{py}"
            self.outs.append(([], py, "intptr_t"))
            return True
        return False

    def _buffer_inputs(self):
        """The arrays taken as buffers (V2_SIGNATURES "buffers"), in NVIDIA's order: the arrays
        that may be absent None together, then every buffer got, then each count's arrays checked
        (their items' size, the same number), the count given to the call."""
        L, fn = self.L, self.fn
        optional = ov.V2_SIGNATURES["buffers"][fn.name][1]
        o = []
        for arrays in self.buffered.values():
            maybe = [public_param(a, L) for a in arrays if a.name in optional]
            if maybe:
                o += [f"if {' or '.join(f'{n} is None' for n in maybe)}:",
                      f"    if not ({' and '.join(f'{n} is None' for n in maybe)}):",
                      f"        raise ValueError({_listed(maybe) + ' must both be None or both be provided'!r})"]
        arrays = [a for group in self.buffered.values() for a in group]
        o += [f"cdef Py_buffer _v_{public_param(a, L)}" for a in arrays]
        o += [f"_get_items({public_param(a, L)}, &_v_{public_param(a, L)}, {a.name in optional})" for a in arrays]
        for count, arrays in self.buffered.items():
            c = next(q for q in fn.params if q.name == count)
            n = f"_n_{count}"
            o.append(f"cdef size_t {n} = 0")
            for i, a in enumerate(arrays):
                size, raw = (f"sizeof({self._ctype(a, 0)})", True) if a.cls == "struct" else (self._elem(a)[1], False)
                test = f"_count_items(&_v_{public_param(a, L)}, {size}, {raw}, {public_param(a, L)!r})"
                if i == 0:
                    o.append(f"{n} = {test}")
                else:
                    msg = _listed([public_param(x, L) for x in arrays]) + " must hold the same number of items"
                    o += [f"if {test} != {n}:", f"    raise ValueError({msg!r})"]
            self.cargs[count] = f"<{self._ctype(c)}>{n}"
        self.lines += o

    def _own_out(self, p, py, var):
        """An output of these shapes: an array of a buffer's length (a numpy array), one whose
        length the caller gives (structs: a record of that many), the first item of an array
        (V2_SIGNATURES "first_item"); False otherwise."""
        key, count = (self.fn.name, p.name), p.extra.get("count")
        given = {q.name for q in self.fn.params if q.conv == "scalar" and q.role == "in"}
        if p.conv == "array_out" and count in self.buffered and p.cls == "scalar":
            b = bare(p.ctype)
            dtype = {"i": "int", "u": "uint", "f": "float"}[SCALARS[b][2]] + str(8 * SCALARS[b][1])
            self.pre += [f"cdef object {var} = _new_items(_n_{count}, {dtype!r})", f"cdef void* _p_{py} = _buffer_address({var}, True)"]
            self.cargs[p.name] = f"<{self._ctype(p)}>_p_{py}"
            self.outs.append(([], var, "object"))
            self.doc_types[py] = "numpy.ndarray"
        elif key in ov.V2_SIGNATURES["first_item"]:
            t, n = self._ctype(p, 0), public_param(next(q for q in self.fn.params if q.name == count), self.L)
            self.pre += [f"cdef view.array _a_{py} = view.array(shape=(max({n}, 1),), itemsize=sizeof({t}), "
                         f"format={_FORMATS[SCALARS[bare(p.ctype)][2], SCALARS[bare(p.ctype)][1]]!r})"]
            self.cargs[p.name] = f"<{self._ctype(p)}>_a_{py}.data"
            self.outs.append(([], f"(<{t}*>_a_{py}.data)[0]", SCALARS[bare(p.ctype)][0]))
        elif p.conv == "array_out" and p.cls == "struct" and count in given and count not in self.counted:
            cls = self._record_class(p)
            if cls is None:
                return False
            n = public_param(next(q for q in self.fn.params if q.name == count), self.L)
            self.pre.append(f"cdef _Record {var} = _new_record(_L.cls({cls!r}), {n})")
            self.cargs[p.name] = f"<{self._ctype(p)}>{var}._ptr"
            self.outs.append(([], var, "object"))
        else:
            return False
        return True

    def _param(self, name):
        return next(q for q in self.fn.params if q.name == name)

    def _given_lengths(self):
        """{C parameter: None, or the value passed} of the lengths that size another output: the
        count of the arrays the library keeps (cuStreamGetCaptureInfo's numDependencies_out), the
        size of a sized result (cuLinkComplete's sizeOut), the count an array filled up to a
        capacity is of (cuGLGetDevices's pCudaDeviceCount): written by the call, not returned;
        and the capacity given as the array's count parameter (cudaDeviceCount)."""
        sg, fn = ov.V2_SIGNATURES, self.fn
        given = {p.extra["count"]: None for p in fn.params if p.conv == "array_ref_out"}
        given.update({size: None for (f, _), size in sg["sized_results"].items() if f == fn.name})
        for p in fn.params:
            if (fn.name, p.name) in sg["capacities"]:
                cap, written = sg["capacities"][fn.name, p.name]
                given.update({p.extra["count"]: cap, written: None})
        return given

    @property
    def hidden(self):
        """The C parameters that are neither taken nor returned (pyapi.v2_outputs)."""
        return set(self.given)

    def _kept_array(self, p, var):
        """An array the library keeps (cuStreamGetCaptureInfo's nodes and edge data), of the length
        another output gives: its items as of the call, copied into a numpy array (handles int64,
        structs their record's dtype), read-only as NVIDIA's view of the library's memory is; an
        empty, writable one where the library gives NULL."""
        n = "_o_" + public_param(self._param(p.extra["count"]), self.L)
        if p.cls == "struct":
            cls = self._record_class(p)
            if cls is None:
                return False
            dtype = f"_L.cls({cls!r})._dtype()"
        else:
            dtype = "'int64'"
        self.outs.append(([f"cdef {self._ctype(p, p.ptr - 1)} {var} = NULL"], f"_kept_array({var}, {n}, {dtype})", "object"))
        self.cargs[p.name] = f"&{var}"
        self.doc_types[public_param(p, self.L)] = "numpy.ndarray"
        return True

    def _optional_inout(self, p, py, var):
        """A value the library reads and updates where the pointer is not NULL (cuLogsDumpToFile's
        iterator): the argument (None: NULL), converted by Cython as its C type, and its value
        after the call returned (0 for None)."""
        t = self._ctype(p, 0)
        r = self._int_type(bare(p.ctype)) if p.cls == "inttd" else SCALARS[bare(p.ctype)][0]
        self.arg("", py)
        self.lines += [f"cdef {t}* _p_{py} = NULL", f"if {py} is not None:", f"    {var} = {py}", f"    _p_{py} = &{var}"]
        self.outs.append(([f"cdef {t} {var} = 0"], f"<{r}>{var}", r))
        self.cargs[p.name] = f"_p_{py}"

    # ---- the declaration and the body

    def head(self, pxd=False):
        params = ", ".join((f"{t} {n}" if t else n) + ("" if d is None else "=*" if pxd else f"={d}")
                           for t, n, d in self.params)
        ret = "" if self.ret == "object" else self.ret + " "
        exc = ""
        if self.ret not in ("object", "tuple", "bytes", "str", "list"):
            exc = " except? -1" if self.ret in _EXCEPT_MINUS_ONE else " except? 0"
        return f"cpdef {ret}{self.name}({params}){exc}"

    def body(self, refs):
        fn = self.fn
        o = [self.head() + ":", '    """' + docstrings.quoted(v2_docstring(self.m, self, refs)) + '\n    """']
        args = ", ".join(self.cargs[p.name] for p in fn.params)
        if _text_result(fn):
            return o + self._indented(self.lines) + [f"    return _text0({self.cy}.{fn.name}({args}))", ""]
        o.append(f"    cdef {self.cy}.{self.L['status']} _status")
        o += self._indented([d for ds, _, _ in self.outs for d in ds] + self.lines + self.pre)
        call = f"_status = {self.cy}.{fn.name}({args})"
        if fn.name in ov.KEEP_GIL:          # the calls made with the GIL held, as in the tuple style
            o.append("    " + call)
        elif fn.name in ov.KEEP_GIL_UNLESS:
            arg = public_param(next(p for p in fn.params if p.name == ov.KEEP_GIL_UNLESS[fn.name][0]), self.L)
            o += [f"    if {_keep_gil_test(self.m, fn.name, arg)}:", "        " + call,
                  "    else:", "        with nogil:", "            " + call]
        else:
            o += ["    with nogil:", "        " + call]
        if fn.name in ov.STATUS_RESULT:
            return o + ["    return <int>_status", ""]
        o += ["    if _status != 0:", "        _raise(_status)"]
        results = [r for _, r, _ in self.outs]
        if len(results) == 1:
            o.append(f"    return {results[0]}")
        elif results:
            o.append(f"    return ({', '.join(results)})")
        return o + [""]

    @staticmethod
    def _indented(lines):
        return ["    " + line for line in lines]


def _kind_type(kind):
    """The Python type of an attribute value of `kind` (_v2_common.pxi, _attr_result), for docstrings."""
    if isinstance(kind, tuple):
        return kind[1]
    return {"?": "bool", "?I": "bool", "i[]": "list[int]"}.get(kind, "bytes" if kind[0] == "s" else "int")


# the typecodes of Cython's view.array by (kind, size) of a C number
_FORMATS = {("i", 4): "i", ("u", 4): "I", ("i", 8): "q", ("u", 8): "Q", ("f", 4): "f", ("f", 8): "d",
            ("i", 2): "h", ("u", 2): "H", ("i", 1): "b", ("u", 1): "B"}


def _filled_counts(fn):
    """The names of fn's counts the library gives and takes (a size_t* in and out) that count arrays
    it fills: the call is made twice, the arrays NULL the first time (cuGraphGetEdges); and the
    counts it takes that another function gives (overrides.V2_SIGNATURES "count_calls")."""
    counts = {p.name for p in fn.params if (p.conv == "value_inout" and p.ptr == 1)
              or (fn.name in ov.V2_SIGNATURES["count_calls"] and p.conv == "scalar")}
    return {p.extra["count"] for p in fn.params if p.conv == "array_out" and p.extra.get("count") in counts}


def _attr_made(fn):
    """{parameter: role} of fn's parameters that belong to an attribute-typed value (overrides
    ATTRIBUTE_PARAMS, ATTRIBUTE_LISTS): "list" the attribute list and data sizes of a call that
    reads several, "count" their length, "size" the size of a value the call takes with it (the
    hidden size of cuCoredumpGetAttribute, which the conversion gives)."""
    made = {}
    for p in fn.params:
        if p.conv == "attr_list":
            made.update({n: "list" for n in (p.extra["attr"], p.extra["sizes"]) if n})
            made[p.extra["count"]] = "count"
    if any(p.conv == "attr" for p in fn.params):
        made.update({p.name: "size" for p in fn.params if p.role == "hidden"})
    return made


def attribute_kinds(model, enum):
    """{member value: kind} of an attribute enum's members that have a _v2 kind
    (overrides.v2_attribute_kind): a struct's kind is (its record slot, its class name)."""
    e = next(x for x in model.enums if x.name == enum)
    rn = model.resolved.records
    enums = {x.name for x in model.enums} | {a for x in model.enums for a in x.aliases}
    handles = {h for h, _ in model.handles}

    def record(ctype):
        cls = rn.cls.get(ctype)
        return (rn.slot[cls], cls) if cls in rn.slot else None

    kinds = {}
    for n, v in e.members:
        k = ov.v2_attribute_kind(enum, n, e.member_docs.get(n, ""), enums.__contains__, handles.__contains__, record)
        if k is not None:
            kinds.setdefault(int(v), k)
    return kinds


def _attr_tables(model, sigs):
    """The module's {member: kind} table of each attribute enum its functions use."""
    used = sorted({p.extra["enum"] for s in sigs for p in s.fn.params if p.conv in ("attr", "attr_list")})
    return [f"cdef dict _V2_ATTR_{en} = {attribute_kinds(model, en)!r}" for en in used] + [""] if used else []


def _buffer_arrays(fn):
    """{count parameter: [the input arrays it counts]} of fn, in their order (the arrays taken as
    buffers: V2_SIGNATURES "buffers")."""
    out = {}
    for p in fn.params:
        if p.conv == "array" and p.role == "in" and p.extra.get("count_param"):
            out.setdefault(p.extra["count_param"], []).append(p)
    return out


def _listed(names):
    """'a and b', 'a, b, and c': the names as NVIDIA's messages list them."""
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + ", and " + names[-1]


def _text_result(fn):
    """Whether fn returns a C string, not a status (nvrtcGetErrorString): its result is the text."""
    return bare(fn.ret) == "char"


def _pyx(model, sigs):
    lib = model.lib
    rn = model.resolved.records
    o = [HEADER.format(ver=model.cuda),
         "# cython: language_level=3, boundscheck=False, wraparound=False, binding=True, embedsignature=True",
         f'"""{of(model)["snake"]["title"]}: the library\'s second API, generated from the CUDA {model.cuda} '
         f'headers in the style of NVIDIA\'s cuda.bindings.{module(model)}."""',
         f"from cuda.bindings cimport cy{lib}",
         "from cuda.bindings._base cimport _Lazy, _new_lazy, _Struct, _Handle, _IntValue, _enum, _Buf, _Buf_new, _array, _bufptr, _kparams",
         "from cuda.bindings._records cimport _Record, _new_record, _new_record_at, _text0",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         "from cython cimport view",
         "from cuda.bindings import _records",
         "from cuda.bindings._internal._fast_enum_impl import FastEnum as _FastEnum",
         # NVIDIA's message for a refused buffer: its 13.5.0's in every build (_v2 came with 13.4)
         f"_BUFFER_ERROR = {ov.TWIN_STYLE['13.5']['buffer_error']!r}",
         ""]
    o += _enum_table([(py, (), [(n, twin_value(model, "enums", int(v))) for n, v in members]) for _, py, members in rn.enums] +
                     [(py, (), members) for py, members in ov.DEFINE_ENUMS_OF(model)])
    o += _records_tables(model)
    o.append("_L.fast_enums = True       # FastEnum classes in every release, as NVIDIA's _v2 has them")
    for n, v in ov.PUBLIC_CONSTANTS.get(module(model), {}).items():
        o.append(f"{v} = {dict(model.defines)[n]!r}")
    o += ["", f"cdef str _STATUS_NAME = {rn.status!r}", 'include "../_module_common.pxi"',
          'include "../_v2_common.pxi"', ""]
    o += _attr_tables(model, sigs)
    o += _classes_at_import(len(rn.enums) + len(ov.DEFINE_ENUMS_OF(model)), rn.layout)
    o += _records_errors(model)
    refs = v2_refs(model)
    for s in sigs:
        o += [""] + s.body(refs)
    return "\n".join(o + _aliases(sigs)) + "\n"


def aliases(sigs):
    """{other name: function} of the module's functions (overrides.V2_NAMES `aliases`); not where
    the release has a function of that name itself (12.9's cuGraphGetEdges, the one without edge
    data, is `graph_get_edges` there, as the tuple style's cuGraphGetEdges is)."""
    made = {s.name for s in sigs}
    return {alias: name for alias, name in ov.V2_NAMES["aliases"].items() if name in made and alias not in made}


def _aliases(sigs):
    """The module's other names of its functions (aliases), as functions."""
    made = {s.name: s for s in sigs}
    o = []
    for alias, name in aliases(sigs).items():
        params = ", ".join(n for _, n, _ in made[name].params)
        o += ["", f"def {alias}({params}):", f'    """Another name of {name}."""', f"    return {name}({params})"]
    return o


def _pxd(model, sigs):
    """The declarations of the module's cpdef functions (its C-API, which a client cimports)."""
    o = [HEADER.format(ver=model.cuda), "# cython: language_level=3",
         "from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, intptr_t, uintptr_t",
         f"from cuda.bindings cimport cy{model.lib}", ""]
    o += [s.head(pxd=True) for s in sigs]
    return "\n".join(o) + "\n"


def _pyi(model, sigs):
    """The module's stub: its enums, struct classes, exceptions and functions with their types."""
    rn = model.resolved.records
    o = [HEADER.format(ver=model.cuda).rstrip("\n"),
         f'"""Types of cuda.bindings.{module(model)} (generated from the CUDA {model.cuda} headers)."""',
         "from typing import Any", "",
         "from numpy import dtype", "",
         "from cuda.bindings._records import _Record", ""]
    for _, py, members in rn.enums:
        _enum_class(o, py, members)
    for py, members in ov.DEFINE_ENUMS_OF(model):
        _enum_class(o, py, members)
    for st in rn.layout:
        o.append(f"class {rn.cls[st.name]}(_Record):")
        o.extend(_fields([ft for ft in model.resolved.fields[st.name] if ft.shown]) or ["    ..."])
        o.append("")
    made = {rn.cls[st.name] for st in rn.layout}
    o += [f"{d}: dtype[Any]" for d, c in rn.dtypes.items() if c in made] + [""]
    o += [f"{v}: int" for v in ov.PUBLIC_CONSTANTS.get(module(model), {}).values()]
    o += _stub_errors(model)
    other = {name: alias for alias, name in aliases(sigs).items()}
    for s in sigs:
        params, ret = v2_types(s)
        text = ", ".join(f"{n}: {t}" + ("" if d is None else f" = {d}") for n, t, d in params)
        o += [f"def {name}({text}) -> {ret}: ..." for name in (s.name, other.get(s.name)) if name]
    return "\n".join(o) + "\n"

"""Python types of the generated API, from the model: what each parameter accepts and what each
call returns, as annotation text.

One place decides them (`PyTypes`, which the resolve stage, `resolve.py`, runs once per model)
for the stubs (`stubs.py`), the docstrings (`pyapi.py`) and the reference pages; likewise the
types of struct fields (`FieldTypes`) and the classes of another module that a wrapper also takes
(`peers`).  The text names the module's own classes bare (`CUstream`), the aliases of the
hand-written stub `cuda/bindings/_base.pyi` (`Address`, `KernelParams`, `Buffer`) bare, and
another module's classes qualified (`driver.CUstream`).  Each type says what the wrapper accepts
(see the conversions in `cuda_bindings/_base.pyx`): where a wrapper is more lenient than its
documented use (an enum parameter takes any int), the type keeps to the documented use, so that a
checker reports the mistake."""
from dataclasses import dataclass, field

from .common import (F_ARRAY, F_BOOL, F_CHARS, F_CSTR, F_ENUM, F_F, F_HANDLE, F_I, F_INTPTR, F_INTV, F_KPARAMS, F_PTRARR,
                     F_STRUCT, F_U, F_VOIDP, bare, counted_fields, field_spec, public_param, py_field,
                     record_field_spec, record_type, struct_of, type_names)
from . import overrides as ov
from .libs import of
from .model import SCALARS


@dataclass
class Input:
    """One parameter of a function's Python signature."""
    name: str           # as the public function takes it
    type: str           # the type it accepts, as the docstrings give it
    stub_type: str      # the same, with the classes of other modules it takes too (peers), as signatures give it
    cname: str          # its C parameter, or None (a struct field the function sets: overrides.STRUCT_ARGS)
    default: object = None


@dataclass
class FunctionTypes:
    """The Python types of one function."""
    # the public function's parameters: the struct-style modules leave out what the wrapper passes
    # itself (a length, a count, a count taken from an array's length) and take a struct's fields
    # for it where the reference does (overrides.STRUCT_ARGS)
    inputs: list
    # C parameter -> the type of the value returned for it (an output; a struct the function
    # fills from its arguments: what it returns of the struct)
    gives: dict
    outputs: list           # the types of the values after the status, as a successful call returns them
    returns: str            # what a call returns: the tuple-style tuple; a struct-style value
    checked_returns: str    # what the checked companion and the snake_case modules return


@dataclass
class FieldTypes:
    """One Python field of a struct class: its spec in the module's _STRUCTS table (common.field_spec,
    record_field_spec) and its types."""
    field: object       # the model's Field
    name: str           # the Python name
    kind: int
    count: int
    cls: str
    ekind: int
    countname: str
    psize: bool         # the table needs the size of what the field points to
    flags: int
    read: str           # the type of the value read
    write: str          # the type a value set may have
    shown: bool = True  # a property of its class (struct-style: not the count of another field, nor hidden)


def scalar(ctype):
    """int, float or bool, for a C scalar type name."""
    cy, _, kind = SCALARS[bare(ctype)]
    if cy == "bint":
        return "bool"
    return "float" if kind == "f" else "int"


def _enum_names(model):
    """C enum name (and its aliases) -> the Python class name."""
    out = {}
    for e in model.enums:
        out[e.name] = e.name
        for a in e.aliases:
            out[a] = e.name
    return out


def classes(model):
    """Every class name the module defines."""
    names = set(_enum_names(model))
    names.update(n for n, _ in model.handles + model.funcptrs)
    names.update(x[0] for x in model.inttds)
    for s in model.structs:
        names.add(s.name)
        names.update(a for a, _ in s.aliases)
    return names


def peers(model, others):
    """A handle class of this module -> the class of the same C type in another module that its
    wrappers take as well (runtime's cudaStream_t and driver.CUstream: both `struct CUstream_st*`)."""
    out = {}
    for lib, m in others.items():
        if lib == model.lib:
            continue
        by_target = {}
        for h, tgt in m.handle_targets.items():
            if tgt != "void":
                by_target.setdefault(tgt, h)
        for h, tgt in model.handle_targets.items():
            if tgt in by_target:
                out[h] = f"{lib}.{by_target[tgt]}"
    return out


def peer_bases(model, peer_classes):
    """A handle class of this module -> the peer (`peers`) that NVIDIA's package derives it from
    (overrides.PEER_SUBCLASSES: runtime.cudaStream_t from driver.CUstream)."""
    handles = {h for h, _ in model.handles}
    stray = sorted(h for h in ov.PEER_SUBCLASSES if h in handles and h not in peer_classes)
    if stray and peer_classes:
        raise ValueError(f"overrides.PEER_SUBCLASSES names handles that are no other module's type: {stray}")
    return {h: peer_classes[h] for h in sorted(ov.PEER_SUBCLASSES) if h in handles and h in peer_classes}


def field_types(kind, clsname, ekind):
    """(type read, type accepted) of a struct field."""
    def one(k, cls):
        if k in (F_I, F_U):
            return "int", "int"
        if k == F_F:
            return "float", "float"
        if k == F_BOOL:
            return "bool", "bool"
        if k == F_ENUM:
            return (f"{cls} | None", f"{cls} | int") if cls else ("int", "int")
        if k in (F_HANDLE, F_INTV):
            return (cls, f"{cls} | int | None") if cls else ("int", "Address")
        if k == F_STRUCT:
            return (cls, cls) if cls else ("int", "int")
        return "int", "Address"
    if kind == F_CHARS:
        return "bytes", "bytes | Sequence[int]"
    if kind in (F_ARRAY, F_PTRARR):
        r, w = one(ekind, clsname)
        return f"list[{r}]", f"Sequence[{w}]"
    if kind == F_CSTR:
        return "bytes | None", "bytes | None"
    if kind == F_KPARAMS:
        return "int", "KernelParams"
    if kind == F_INTPTR:
        return clsname, f"{clsname} | Address"
    if kind == F_VOIDP:
        return "int", "Address"
    return one(kind, clsname)


def record_field_type(kind, clsname, ekind, flags):
    """(read type, write type) of a struct-style module's field (cuda/bindings/_records.pyx)."""
    if kind == F_STRUCT:
        return clsname, clsname
    if kind == F_ARRAY and ekind == F_STRUCT:
        return clsname, clsname
    if kind == F_CHARS and not flags & 2:
        return "str", "str | bytes"
    if kind in (F_ARRAY, F_CHARS):
        return "NDArray[Any]", "Sequence[int] | NDArray[Any]"
    if kind == F_PTRARR and ekind == F_STRUCT:      # an empty list while the pointer is NULL
        return f"{clsname} | list[{clsname}]", f"{clsname} | None"
    if kind == F_PTRARR:        # numbers behind a pointer (overrides.POINTER_NUMBERS)
        return "NDArray[Any]", "Sequence[int] | NDArray[Any] | None"
    r, w = field_types(kind, "", ekind)
    if r not in ("int", "float", "bool"):
        r = "int"
    return r, ("int" if r == "int" else r)


def _optional(t):
    return t if t == "Any" or t.endswith("| None") else f"{t} | None"


HIDDEN_CONVS = ("fixed", "fixed_ref", "count_ref")      # what a struct-style wrapper passes itself


class PyTypes:
    """The type rules over one model: `rn`, the record names of a struct-style module
    (common.RecordNames), else None; `peers`, the classes of other modules its wrappers take too."""

    def __init__(self, model, rn=None, peer_classes=None):
        self.model, self.rn, self.peers = model, rn, peer_classes or {}
        L = of(model)
        self.records = rn is not None
        self.snake = bool(L.get("snake"))        # nvJitLink, NVVM (and the struct style): handles are ints
        self.status = L["status"]
        self.enum_names = _enum_names(model)
        self.classes = classes(model)
        self._fields = {}

    # ---- one value

    def item(self, p):
        """The Python type of one value of p's base type, as a call returns it."""
        b = bare(record_type(self.model, p))
        if self.records:     # the struct-style modules: numbers, ints, and the struct classes
            if p.cls == "scalar" and b in SCALARS:
                return scalar(b)
            if p.cls == "struct":
                return self.rn.cls.get(b, "int")
            return "int"
        if p.cls == "scalar" and b in SCALARS:
            return scalar(b)
        if p.cls == "enum":
            return self.enum_names.get(b, "int")
        if p.cls in ("inttd", "handle", "funcptr", "struct") and b in self.classes:
            return b
        return "int"

    def const_twins(self, t):
        """The handle classes a parameter of handle class `t` also takes because C converts them to
        it implicitly: for a handle to a const object (cudaArray_const_t), the handles to the same
        object type that are not const (cudaArray_t)."""
        m = self.model
        if t not in m.const_handles:
            return []
        target = m.handle_targets.get(t)
        return [h for h, _ in m.handles
                if h != t and h not in m.const_handles and m.handle_targets.get(h) == target]

    def accepts(self, p, peers):
        """What a parameter of p's base type accepts as one value (an item of a list, too): its
        class, its non-const twin for a handle to a const object (const_twins), a handle type the
        function also documents (overrides.HANDLE_ALSO, model: extra["also"]), and (`peers`) the
        same C type's class of another module."""
        t = self.item(p)
        if p.cls in ("inttd", "handle", "funcptr") and t != "int":
            types = [t] + self.const_twins(t) + ([p.extra["also"]] if "also" in p.extra else [])
            types += [peers[x] for x in types if x in peers]
            return " | ".join(types + ["int", "None"])
        return t

    # ---- parameters

    def param_type(self, fn, p, peers):
        """Annotation text of an input (or in/out) parameter (`peers`: {} or self.peers)."""
        conv = p.conv
        if self.records:
            t = self._records_param_type(p)
            if t:
                return t
        if conv in ("scalar", "inttd", "handle", "value_inout"):
            if self.snake and p.cls in ("handle", "funcptr"):
                return "int"
            return self.accepts(p, peers)
        if conv == "enum":
            if self.snake:   # the snake_case modules' short-named enum (InputType), or a plain int
                short = of(self.model)["snake"]["enums"].get(bare(p.ctype))
                return f"{short[0]} | int" if short else "int"
            return self.item(p)
        if conv == "handle_ref":
            return "int" if self.snake else self.accepts(p, peers)
        if conv == "struct_val":
            return self.item(p)
        if conv == "struct_ptr":
            t = self.item(p)
            return f"{t} | Sequence[{t}] | None" if p.extra.get("count_param") else f"{t} | None"
        return self._pointer_param_type(fn, p, peers)

    def _pointer_param_type(self, fn, p, peers):
        conv = p.conv
        if conv in ("voidp", "unknown"):
            return "Buffer | int" if self.snake else "Address"
        if conv == "cstr":
            return ("str | bytes | int" if (fn.name, p.name) in ov.CSTR_ADDRESS else "str | bytes") if self.snake else "bytes"
        if conv == "buf_w":
            return "Buffer | int" if self.snake else "Buffer"
        if conv == "array":
            return f"Sequence[{self.accepts(p, peers)}] | Buffer | int | None"
        if conv == "strlist":
            return "Sequence[bytes | str] | None"
        if conv in ("voidpp", "jitvalues"):
            return "Sequence[Any] | Address"
        if conv == "kparams":
            return "KernelParams"
        if conv == "attr":
            return "Any"
        raise ValueError(f"{fn.name}({p.name}): no Python type for conversion {conv!r}")

    def _records_param_type(self, p):
        """A struct-style module's parameter type, where it differs from the other modules'."""
        conv = p.conv
        if conv == "enum":
            py = self.rn.enum_cls.get(bare(p.ctype))
            return f"{py} | int" if py else "int"
        if conv == "struct_ptr":
            return f"{self.item(p)} | int | None"
        if conv in ("handle", "handle_ref", "inttd", "value_ref", "fixed", "fixed_ref", "count_ref"):
            return "int"
        if conv == "records_io":
            return f"{self.item(p)} | Sequence[int]"
        if conv == "struct_args":
            return "Any"
        if conv == "array":
            return "Sequence[int] | Buffer | int | None"
        return None

    def output_type(self, fn, p):
        """Type of one output as a successful call returns it."""
        conv = p.conv
        if self.records:
            if (fn.name, p.name) in ov.UNION_BY_ATTRIBUTE:
                return f"int | list[{self.rn.cls[ov.UNION_BY_ATTRIBUTE[(fn.name, p.name)][3]]}]"
            if conv == "strbuf":
                return "int" if fn.name in ov.CHAR_RESULT else "str"
            if conv == "records_io":
                return self.item(p)
            if conv == "struct_out" and "unwrap" in p.extra:
                return self.record_path_types(p.ctype, p.extra["unwrap"])[0]
            if conv in ("array_out", "array_ref_out"):
                # numbers and handles: a Cython memoryview (or array) of them, as NVIDIA's
                return self.item(p) if p.cls == "struct" else "memoryview"
        if conv in ("value_out", "value_inout"):
            if self.snake and p.cls in ("handle", "funcptr"):
                return "int"
            return self.item(p)
        if conv == "struct_out":
            return self.item(p)
        if conv in ("voidp_out", "voidp_out_val"):
            return "int"
        if conv == "cstr_out":
            return "bytes | None"
        if conv == "strbuf":
            return "bytes"
        if conv in ("array_out", "array_ref_out"):
            return "bytes" if bare(p.ctype) == "char" else f"list[{self.item(p)}]"
        if conv == "attr":
            return "Any"
        if conv == "attr_list":
            return "list[Any]"
        raise ValueError(f"{fn.name}({p.name}): no Python type for output conversion {conv!r}")

    def struct_arg_types(self, p):
        """For a struct parameter filled from the function's own parameters (overrides.STRUCT_ARGS):
        ({Python parameter: the type it takes}, the type of what the call returns of the struct, or
        None), from the struct's field types as its class reads and writes them."""
        out = p.extra["output"]
        st = struct_of(self.model, p.ctype)
        # an array the wrapper allocates for a pointer field ("alloc:F:N") is returned as its class
        allocated = {path.split(":")[1]: next(self.rn.cls[f.ctype] for f in st.fields
                                              if self.rn.fields[st.name][f.name] == path.split(":")[1])
                     for _, path in p.extra["inputs"] if path.startswith("alloc:")}
        if isinstance(out, (list, tuple)):       # several fields: the type of each
            ret = [self.record_path_types(p.ctype, o)[0] for o in out]
        else:
            ret = self.rn.cls[bare(p.ctype)] if out == "*" else allocated.get(out) or (
                self.record_path_types(p.ctype, out)[0] if out else None)
        return {arg: self.record_path_types(p.ctype, path)[1] for arg, path in p.extra["inputs"]}, ret

    def record_path_types(self, ctype, path):
        """(read type, write type) of the field `path` (a Python field name; "alloc:..." a number
        of items to make room for; a member's field "value.str": Any) of the struct class of
        `ctype`."""
        if path.startswith("alloc:"):
            return "int", "int"
        if path.startswith("bytes:"):
            return "bytes", "Buffer | Sequence[int]"
        if path.startswith("asked:"):
            return "bytes", "bytes"
        ft = next((ft for ft in self.struct_fields(struct_of(self.model, ctype)) if ft.name == path), None)
        if ft is None:
            return "Any", "Any"
        if ft.kind == F_ENUM:
            e = self.rn.enum_cls.get(bare(ft.field.ctype))
            return "int", (f"{e} | int" if e else "int")
        return ft.read, ft.write

    # ---- functions

    def function(self, fn):
        """The FunctionTypes of fn."""
        outputs = self.outputs(fn)
        if self.records and fn.ret != self.status:
            returns = self.records_return(fn)
        else:
            returns = "tuple[" + ", ".join([self.status] + [_optional(t) for t in outputs]) + "]"
        checked = "None" if not outputs else outputs[0] if len(outputs) == 1 else "tuple[" + ", ".join(outputs) + "]"
        gives = {p.name: self.output_type(fn, p) for p in fn.params if p.role in ("out", "inout")}
        gives.update({p.name: self.struct_arg_types(p)[1] for p in fn.params
                      if p.conv == "struct_args" and p.extra["output"]})
        return FunctionTypes(self.inputs(fn), gives, outputs, returns, checked)

    def inputs(self, fn):
        """The Input of each parameter of fn's public function."""
        L = of(self.model)
        out = []
        for p in fn.params:
            if p.role not in ("in", "inout"):
                continue
            if self.records:
                if p.conv in HIDDEN_CONVS or "implicit" in p.extra:
                    continue
                if p.conv == "struct_args":
                    out += [Input(arg, t, t, None) for arg, t in self.struct_arg_types(p)[0].items()]
                    continue
            out.append(Input(public_param(p, L), self.param_type(fn, p, {}), self.param_type(fn, p, self.peers),
                             p.name, p.extra.get("default")))
        return out

    def outputs(self, fn):
        """Types of the values after the status, as a successful call returns them."""
        if fn.ret != self.status:
            # a C function that returns a value, not a status: a struct, or a string (bytes)
            return [bare(fn.ret) if bare(fn.ret) in self.classes else "bytes | None"]
        out = []
        for p in fn.params:
            if p.role in ("out", "inout"):
                out.append(self.output_type(fn, p))
            elif p.conv == "struct_args" and p.extra["output"]:
                ret = self.struct_arg_types(p)[1]
                out.append(ret if isinstance(ret, str) else "tuple[" + ", ".join(ret) + "]")
        return out

    def records_return(self, fn):
        """What a struct-style module's function returns whose C function returns no status."""
        if fn.ret == "void" or fn.name in ov.TWIN_STYLE.get(self.model.cuda, {}).get("returns_none", ()):
            return "None"
        b = bare(fn.ret)
        return scalar(b) if b in SCALARS and b != "char" else "str"

    def make_param_types(self, cls, fields):
        """The types a runtime make_* helper's parameters take: what each struct field it sets takes."""
        s = next(x for x in self.model.structs if x.name == cls)
        by_name = {ft.field.name: ft for ft in self.struct_fields(s)}
        return [by_name[f].write for f in fields]

    # ---- struct fields

    def struct_fields(self, s):
        """The FieldTypes of struct s's Python fields (made once)."""
        if s.name not in self._fields:
            self._fields[s.name] = self._record_fields(s) if self.records else self._tuple_fields(s)
        return self._fields[s.name]

    def _tuple_fields(self, s):
        out = []
        for f in s.fields:
            if py_field(self.model, s, f):
                kind, count, clsname, ekind, countname, psize = field_spec(self.model, s, f, self.classes)
                out.append(FieldTypes(f, f.name, kind, count, clsname, ekind, countname, psize, 0,
                                      *field_types(kind, clsname, ekind)))
        return out

    def _record_fields(self, s):
        """A struct-style module's fields (the class names of its structs and enums: type_names)."""
        names = type_names(self.model)
        # (the count fields are attributes too where the reference shows them: _v2)
        hidden = set() if of(self.model)["snake"].get("show_counts") else counted_fields(s, self.model.cuda)
        out = []
        for f in s.fields:
            if None in f.dims or f.name is None:
                continue
            fname, kind, count, clsname, ekind, countname, psize, flags = record_field_spec(
                self.model, s, f, names, self.rn)
            shown = f.name not in hidden and (s.name, f.name) not in ov.HIDDEN_FIELDS
            out.append(FieldTypes(f, fname, kind, count, clsname, ekind, countname, psize, flags,
                                  *record_field_type(kind, clsname, ekind, flags), shown))
        return out

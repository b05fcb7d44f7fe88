"""Integer enums without `enum.IntEnum`'s cost: FastEnum, the base of the enum classes of the CUDA
12.9 and 13.5 builds and of cuda.bindings._v2 in every build.

NVIDIA's cuda-bindings 12.9.x and 13.2 onwards make their enums with a `FastEnum` base, which
clients look for as cuda.bindings._internal._fast_enum (that module re-exports this one's classes
where NVIDIA's package of the release has it: docs/cuda-versions.md); its _v2 modules make theirs
so in every release.

A class body's integer attributes (or `(value, docstring)` pairs) become its members: instances of
the class, which is an `int` subclass, one per value (a later name with the same value is another
name of the first member).  Members have `.name` and `.value`; `Cls(value)` returns the member or
raises ValueError; `Cls.__members__` maps every name to its member; iterating the class gives
each member once, in definition order; `len()` counts them; `in` takes a member or a value.  A
member's `str()` is its `repr()`, `<Cls.NAME: value>`.
"""
__all__ = ["FastEnum", "FastEnumMetaclass"]


def _member_value(attr, obj):
    """The (value, docstring) a class-body attribute declares, or None if it declares no member."""
    if attr.startswith("__") and attr.endswith("__"):
        return None
    if type(obj) is int:
        return obj, None
    if (type(obj) is tuple and len(obj) == 2 and type(obj[0]) is int
            and (obj[1] is None or isinstance(obj[1], str))):
        return obj
    return None


class FastEnumMetaclass(type):
    """The metaclass of FastEnum classes: makes the members, and gives the class `len`, iteration,
    `in` and the enum-style repr `<enum 'Name'>`."""

    def __new__(mcls, name, bases, namespace, **kwargs):
        declared = []
        for attr, obj in list(namespace.items()):
            spec = _member_value(attr, obj)
            if spec is not None:
                declared.append((attr, spec))
                del namespace[attr]
        cls = super().__new__(mcls, name, bases, namespace, **kwargs)
        by_value, by_name, order = {}, {}, []
        type.__setattr__(cls, "_value2member_map_", by_value)
        type.__setattr__(cls, "__members__", by_name)
        type.__setattr__(cls, "_member_order_", order)
        for attr, (value, doc) in declared:
            member = by_value.get(value)
            if member is None:
                member = int.__new__(cls, value)
                member._name = attr
                if doc is not None:
                    member.__doc__ = doc
                by_value[value] = member
                order.append(member)
            by_name[attr] = member
            type.__setattr__(cls, attr, member)
        return cls

    def __repr__(cls):
        return f"<enum {cls.__name__!r}>"

    def __len__(cls):
        return len(cls._member_order_)

    def __iter__(cls):
        return iter(tuple(cls._member_order_))

    def __contains__(cls, value):
        if isinstance(value, cls):
            return True
        try:
            return value in cls._value2member_map_
        except TypeError:           # an unhashable object is no member
            return False


class FastEnum(int, metaclass=FastEnumMetaclass):
    """Base class of integer enums whose members are singletons of the class (see the module)."""

    def __new__(cls, value):
        member = cls._value2member_map_.get(value) if _hashable(value) else None
        if member is None:
            raise ValueError(f"{value} is not a valid {cls.__name__}")
        return member

    @property
    def name(self):
        return self._name

    @property
    def value(self):
        return int(self)

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name}: {int(self)}>"

    __str__ = __repr__

    def __format__(self, spec):
        return int.__format__(int(self), spec) if spec else repr(self)

    def __reduce_ex__(self, protocol):
        return type(self), (int(self),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def _hashable(value):
    try:
        hash(value)
    except TypeError:
        return False
    return True

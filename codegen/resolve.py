"""Stage 3: the Python names and types of a model, resolved once for the emitters to read.

`resolve(model, others)` attaches a `Resolved` to the model (`model.resolved`, not a dataclass
field: `Model.to_json()` stays the model's): the struct-style modules' names (common.RecordNames),
every class name, the classes of other modules the wrappers take too (pytypes.peers, from the
release's other models) and those of them that its classes derive from, the Python fields of each struct with their types, the types of each
Python function's parameters and results (pytypes.FunctionTypes), and the runtime's make_*
helpers' parameter types.  The emitters (emit_py, emit_snake, stubs), pyapi, refdocs and changelog
read them; none computes a name or a type again."""
from dataclasses import dataclass

from . import overrides as ov
from . import pytypes
from .common import record_names, records_style
from .libs import helpers, of


@dataclass
class Resolved:
    records: object     # the struct-style modules' common.RecordNames, else None
    classes: set        # every class name the module defines
    peers: dict         # a handle class -> the same C type's class in another module (pytypes.peers)
    bases: dict         # a handle class -> the peer it derives from (overrides.PEER_SUBCLASSES)
    fields: dict        # struct name -> its Python fields, [pytypes.FieldTypes]
    functions: dict     # the name of each Python function -> pytypes.FunctionTypes
    helpers: dict       # the runtime's make_* helper -> the types of its parameters


def resolve(model, others=None):
    """Attach the Resolved of `model` (`others`: the release's models by library, whose classes
    its wrappers may take too); returns the model."""
    rn = record_names(model) if records_style(of(model)) else None
    types = pytypes.PyTypes(model, rn, pytypes.peers(model, others or {}))
    model.resolved = Resolved(
        records=rn, classes=types.classes, peers=types.peers, bases=pytypes.peer_bases(model, types.peers),
        fields={s.name: types.struct_fields(s) for s in model.structs},
        functions={fn.name: types.function(fn) for fn in model.functions if fn.python},
        helpers={name: types.make_param_types(cls, fields)
                 for name, (cls, _, fields) in sorted(ov.MAKE_FUNCTIONS.items())} if helpers(model.lib) else {})
    return model

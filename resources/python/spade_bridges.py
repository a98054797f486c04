"""Takes every road to JavaScript away from Python in the SPADE sandbox.

Pyodide's bridges (the ``js``, ``pyodide_js`` and ``_pyodide_core`` modules, ``pyodide.ffi``
and the functions and classes around them) hand out JavaScript objects, and from one of them the
host's JavaScript API. The seal comes in two halves:

- ``seal_namespaces`` runs once, before the memory snapshot (the harness's ``prepare()``): it
  replaces Pyodide's event loop and clears every name bound to a bridge object from every module
  outside the bridges, and returns a record of each cleared namespace. The bridge modules stay
  in place: Pyodide's snapshot restore imports them again.
- ``seal_bridges`` runs in every interpreter, after the restore and before any environment code
  (the harness's ``connect()``): a namespace equal, value by value (the same objects), to its
  record holds no bridge object; only a namespace the restore changed, or a module it added, is
  walked again. Then the bridge modules and the harness's own leave ``sys.modules``, emptied, and
  the FFI classes that outlive them (the core keeps them) get a refusing constructor.
"""

import gc
import sys
import types

BRIDGE_MODULES = frozenset({"js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip"})
HEAP_TYPE, IMMUTABLE_TYPE = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE
# What an FFI class that outlives its module could make a JavaScript object with.
# Bridge objects outside the bridge modules that Pyodide's snapshot restore (and its runPython)
# still uses: left in place before the snapshot, cleared by ``seal_bridges`` after the restore.
RESTORE_NEEDS = {"builtins": frozenset({"___EvalCodeResultException"})}
CONSTRUCTORS = frozenset({"__new__", "__init__", "new", "_new_exc", "__call__", "to_weakref", "bind_class", "bind_sig"})

# The C descriptors of the built-in types, applied directly: they run no code of any class.
type_module = type.__dict__["__module__"].__get__
type_flags = type.__dict__["__flags__"].__get__
type_dict = type.__dict__["__dict__"].__get__


def bridge_name(name):
    return type(name) is str and name.partition(".")[0] in BRIDGE_MODULES


def module_of(cls):
    try:
        return type_module(cls)
    except AttributeError:
        return None


def replace_event_loop(loop_policy):
    """Puts ``loop_policy`` (pure Python) in place of Pyodide's event loop, whose functions hold
    JavaScript objects, and ``asyncio.run`` back."""
    import asyncio
    import asyncio.events as events
    import asyncio.runners as runners
    events._set_running_loop(None)
    policy = loop_policy()
    # Python 3.14 deprecates the public setter; the unit tests run an older CPython.
    (getattr(events, "_set_event_loop_policy", None) or events.set_event_loop_policy)(policy)
    policy.set_event_loop(policy.new_event_loop())
    asyncio.run = runners.run


def bridge_test(own_modules):
    """The test of a value: a bridge module, or a function, class or object of one (or a module or
    function of ``own_modules``)."""
    def is_bridge(value):
        kind = type(value)
        if kind is types.ModuleType:
            name = value.__dict__.get("__name__")
            return bridge_name(name) or name in own_modules
        if kind is types.FunctionType:
            name = value.__globals__.get("__name__")
            return bridge_name(name) or name in own_modules
        if kind is types.BuiltinFunctionType:
            owner = value.__self__
            return type(owner) is types.ModuleType and bridge_name(owner.__dict__.get("__name__"))
        if issubclass(kind, type):
            return bridge_name(module_of(value))
        return bridge_name(module_of(kind))
    return is_bridge


def outside_bridges(name, module, own_modules):
    return type(name) is str and not bridge_name(name) and name not in own_modules and type(module) is types.ModuleType


def clear_namespace(name, module, is_bridge, keep=frozenset()):
    """Puts every name of ``module`` bound to a bridge object back to what it wrapped, or None (in
    ``__main__``, which holds Pyodide's runPython globals: removes it), and takes bridge objects
    out of its lists (``sys.meta_path``...); the names in ``keep`` are left as they are."""
    namespace = module.__dict__
    for key, value in list(namespace.items()):
        if key in keep:
            continue
        if is_bridge(value):
            inner = value.__dict__.get("__wrapped__") if type(value) is types.FunctionType else None
            if name == "__main__":
                del namespace[key]
            else:
                namespace[key] = inner if inner is not None and not is_bridge(inner) else None
        elif type(value) is list:
            value[:] = [item for item in value if not is_bridge(item)]


def lists_of(namespace):
    return {key: tuple(value) for key, value in namespace.items() if type(value) is list}


def seal_namespaces(loop_policy, own_modules):
    """The half of the seal that lasts in the memory snapshot: Pyodide's event loop replaced and
    every module's namespace outside the bridges and ``own_modules`` cleared of bridge objects.
    Pyodide's restore still needs a few (``RESTORE_NEEDS``): a module left holding one is not
    recorded, so ``seal_bridges`` clears it whole. Returns the record ``seal_bridges`` checks each
    namespace against: per module, the module and copies of its namespace and of its lists."""
    replace_event_loop(loop_policy)
    is_bridge = bridge_test(own_modules)
    record = {}
    for name, module in list(sys.modules.items()):
        if outside_bridges(name, module, own_modules):
            clear_namespace(name, module, is_bridge, RESTORE_NEEDS.get(name, frozenset()))
    gc.collect()
    for name, module in list(sys.modules.items()):
        if outside_bridges(name, module, own_modules) and name not in RESTORE_NEEDS:
            record[name] = (module, dict(module.__dict__), lists_of(module.__dict__))
    return record


def seal_bridges(loop_policy, refusal, own_modules, record):
    """Seals the bridges in an interpreter made from the snapshot (or the one that made it):
    clears every namespace that differs from ``record`` (from ``seal_namespaces``) or is not in
    it; replaces the event loop again; takes the bridge modules and ``own_modules`` out of
    ``sys.modules``, the bridge modules' namespaces emptied; and gives the FFI classes that outlive
    them ``refusal`` as constructor. Empties ``record``."""
    is_bridge = bridge_test(own_modules)
    modules = list(sys.modules.items())
    for name, module in modules:
        if not outside_bridges(name, module, own_modules):
            continue
        kept = record.get(name)
        # Dict equality compares values by identity first: a namespace nothing rebound runs no __eq__.
        if kept is None or kept[0] is not module or kept[1] != module.__dict__ or kept[2] != lists_of(module.__dict__):
            clear_namespace(name, module, is_bridge)
    record.clear()
    replace_event_loop(loop_policy)
    for name, module in modules:
        if bridge_name(name) or name in own_modules:
            sys.modules.pop(name, None)
            if type(module) is types.ModuleType and bridge_name(name):
                namespace = module.__dict__
                keep = namespace.get("__name__")
                namespace.clear()
                namespace["__name__"] = keep
    modules = module = namespace = kept = None
    # What survives is held by the core itself: its classes. None of them may make an object.
    # (Classes the emptied modules held are still listed until the collection below; they are
    # given the refusal too.)
    refuse_new = staticmethod(refusal)
    seen, pending = set(), [object]
    while pending:
        for cls in type.__subclasses__(pending.pop()):
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            pending.append(cls)
            if bridge_name(module_of(cls)) and type_flags(cls) & HEAP_TYPE and not type_flags(cls) & IMMUTABLE_TYPE:
                for key in list(type_dict(cls)):
                    if key in CONSTRUCTORS:
                        type.__setattr__(cls, key, refuse_new if key == "__new__" else None)
    # What the emptied modules held and nothing else does (their classes, functions and objects,
    # still listed by object.__subclasses__() and weak references until collected) goes now.
    gc.collect()

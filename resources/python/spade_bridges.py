"""Takes every road to JavaScript away from Python in the SPADE sandbox.

Pyodide's bridges (the ``js``, ``pyodide_js`` and ``_pyodide_core`` modules, ``pyodide.ffi``
and the functions and classes around them) hand out JavaScript objects, and from one of them the
host's JavaScript API. ``seal_bridges`` runs once per interpreter, after a snapshot restore
(Pyodide registers its bridges again then) and before any environment code: the harness's
``connect()`` calls it, then this module leaves ``sys.modules`` with the harness's own.
"""

import builtins
import gc
import sys
import types

BRIDGE_MODULES = frozenset({"js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip"})
HEAP_TYPE, IMMUTABLE_TYPE = 1 << 9, 1 << 8  # Py_TPFLAGS_HEAPTYPE, Py_TPFLAGS_IMMUTABLETYPE
# What an FFI class that outlives its module could make a JavaScript object with.
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


def seal_bridges(loop_policy, refusal, own_modules):
    """Replaces Pyodide's event loop (whose functions hold JavaScript objects) with ``loop_policy``
    (pure Python); puts every name bound to a bridge object (or to a function of ``own_modules``)
    outside the bridge modules back to what it replaced, or None (in ``__main__`` and
    ``builtins``, removes it); takes the bridge modules and ``own_modules`` out of
    ``sys.modules``, the bridge modules' namespaces emptied; and gives the FFI classes that outlive
    them (the core keeps them) ``refusal`` as constructor."""
    import asyncio
    import asyncio.events as events
    import asyncio.runners as runners
    events._set_running_loop(None)
    policy = loop_policy()
    # Python 3.14 deprecates the public setter; the unit tests run an older CPython.
    (getattr(events, "_set_event_loop_policy", None) or events.set_event_loop_policy)(policy)
    policy.set_event_loop(policy.new_event_loop())
    asyncio.run = runners.run

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

    def unwrapped(value):
        inner = value.__dict__.get("__wrapped__") if type(value) is types.FunctionType else None
        return inner if inner is not None and not is_bridge(inner) else None

    modules = list(sys.modules.items())
    for name, module in modules:
        if type(name) is not str or bridge_name(name) or name in own_modules or type(module) is not types.ModuleType:
            continue
        namespace = module.__dict__
        for key, value in list(namespace.items()):
            if is_bridge(value):
                # __main__ holds Pyodide's runPython globals (the boot imported the harness there).
                if name == "__main__":
                    del namespace[key]
                else:
                    namespace[key] = unwrapped(value)
            elif type(value) is list:
                value[:] = [item for item in value if not is_bridge(item)]
    for key, value in list(builtins.__dict__.items()):
        if is_bridge(value) or (type(value) is list and any(is_bridge(item) for item in value)):
            del builtins.__dict__[key]
    for name, module in modules:
        if bridge_name(name) or name in own_modules:
            sys.modules.pop(name, None)
            if type(module) is types.ModuleType and bridge_name(name):
                namespace = module.__dict__
                keep = namespace.get("__name__")
                namespace.clear()
                namespace["__name__"] = keep
    modules = module = namespace = value = None
    gc.collect()
    # What survives is held by the core itself: its classes. None of them may make an object.
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
    gc.collect()

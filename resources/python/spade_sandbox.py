"""The Python half of the SPADE sandbox: runs one environment at a time for the host.

The host (main/sandbox/child/sandboxHost.mjs) imports this module into a fresh Pyodide
interpreter, takes a memory snapshot, and for every interpreter made from it calls
``install(mark_tainted)`` once, then ``handle(request_json) -> response_json`` per request.

``install`` removes this module (and Pyodide's JavaScript bridges) from ``sys.modules`` and puts
an import blocker first on ``sys.meta_path``, so environment code cannot import them. It also
adds an audit hook: while environment code runs, events that could reach outside the
environment's own objects (frames, ``gc`` object walks, ``ctypes``, file writes, patching
classes or functions it did not define, ...) call ``mark_tainted(reason)``, a JavaScript
function: Python code cannot undo that mark, and a marked interpreter is thrown away after the
session. At ``close`` the harness compares the interpreter against the baseline it captured at
install time (every module's namespace, module-level containers and objects, a few interpreter
settings) and reports whether the interpreter is still clean enough to run the same code again.
"""

import builtins
import collections
import copy
import decimal
import gc
import io
import json
import linecache
import math
import operator
import os
import posix
import random
import sys
import traceback
import types

# Standard-library modules environments commonly use, imported before the snapshot so a session
# never pays for them and so they are part of the checked baseline.
PRELOADED = (
    "abc", "array", "ast", "base64", "binascii", "bisect", "calendar", "cmath", "collections",
    "collections.abc", "contextlib", "copy", "dataclasses", "datetime", "decimal", "difflib",
    "enum", "fractions", "functools", "graphlib", "hashlib", "heapq", "inspect", "itertools",
    "json", "keyword", "math", "numbers", "operator", "pprint", "random", "re", "statistics",
    "string", "struct", "textwrap", "time", "typing", "unicodedata", "warnings", "zlib",
)
for _name in PRELOADED:
    __import__(_name)

import spade_env  # noqa: E402  (after the preloads on purpose: it is part of the baseline too)

ENV_MODULE = "spade_environment"
ENV_FILE = "environment.py"
BLOCKED_IMPORTS = frozenset({
    "js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "ctypes", "_ctypes",
    "spade_sandbox",
})
# Module attributes that change in normal use (caches): not part of the cleanliness check.
CACHE_ATTRIBUTES = frozenset({
    "re._cache", "re._cache2", "linecache.cache", "sys.path_importer_cache", "sys.modules",
    "importlib._bootstrap._module_locks", "_frozen_importlib._module_locks",
    "importlib._bootstrap._blocking_on", "_frozen_importlib._blocking_on",
    "encodings._cache", "_strptime._regex_cache", "warnings.onceregistry", "warnings._filters_mutated_lock_held",
    "inspect._filesbymodname", "inspect.modulesbyfile",
})
TAINTING_EVENTS = frozenset({
    "sys._getframe", "sys._current_frames", "sys._current_exceptions", "sys.settrace",
    "sys.setprofile", "sys.addaudithook", "sys.monitoring.register_callback", "gc.get_objects",
    "gc.get_referrers", "gc.get_referents", "gc.freeze", "os.chdir", "os.putenv", "os.unsetenv",
    "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.truncate", "os.utime", "os.kill", "os.killpg", "os.system", "os.exec",
    "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "subprocess.Popen", "socket.connect",
    "socket.bind", "socket.sendto", "socket.getaddrinfo", "import",
})
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "f_globals", "f_locals"})
IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE: such classes cannot be patched at all
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND


class ContractError(Exception):
    """The environment broke the SPADE contract (a wrong return type, a missing method...)."""


class _ImportBlocker:
    """First on sys.meta_path: refuses the host bridges and this harness to environment code."""

    __slots__ = ()

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        if fullname.partition(".")[0] in BLOCKED_IMPORTS:
            raise ModuleNotFoundError(f"import of {fullname!r} is not allowed in the SPADE sandbox", name=fullname)
        return None


class _CappedWriter(io.TextIOBase):
    """Collects printed text up to a limit per session; the rest is counted and dropped."""

    def __init__(self, limit):
        self.limit = limit
        self.parts = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def take(self):
        text = "".join(self.parts)
        self.parts = []
        if self.dropped:
            text += f"\n[printed output truncated: {self.dropped} more characters over the {self.limit} character limit]\n"
            self.dropped = 0
        return text


def _jsonable(value, depth=0):
    """A JSON-safe copy of an info value: tuples become lists, sets sorted lists, dict keys
    strings, non-finite floats and huge integers strings, anything else its repr()."""
    if depth > 32:
        raise ContractError("info nests deeper than 32 levels")
    if value is None or type(value) is bool:
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value) if abs(value) <= 2**53 else str(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else repr(float(value))
    if isinstance(value, dict):
        return {(key if type(key) is str else str(key)): _jsonable(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, depth + 1) for item in value]
    if isinstance(value, (set, frozenset)):
        items = [_jsonable(item, depth + 1) for item in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))
    return repr(value)


def _type_name(value):
    return type(value).__name__


def _scrub_bridges():
    """Removes Pyodide's JavaScript bridge modules from sys.modules and the JS import finder."""
    removed = []
    for name in list(sys.modules):
        if name.partition(".")[0] in BLOCKED_IMPORTS and name != __name__:
            removed.append((name, sys.modules.pop(name)))
    for finder in list(sys.meta_path):
        registry = getattr(finder, "jsproxies", None)
        if isinstance(registry, dict):
            registry.clear()
            sys.meta_path.remove(finder)
    if _ImportBlocker not in sys.meta_path:
        sys.meta_path.insert(0, _ImportBlocker)
    return removed


def _make_baseline(bound):
    """Captures what a clean interpreter looks like; returns (first_difference, rebase,
    drop_new_modules).

    The check compares object identities with ``operator.is_`` (``id()`` would fire an audit
    event per call). Every name it uses is bound here (``bound`` holds the real builtins), so
    environment code that patches builtins, modules or this harness's globals cannot change how
    the check runs; it can only make it fail."""
    map_, list_, type_, bytes_, len_, all_, getattr_, isinstance_ = (
        bound["map"], bound["list"], bound["type"], bound["bytes"], bound["len"], bound["all"], bound["getattr"], bound["isinstance"]
    )
    dict_ = bound["dict"]
    dict_keys, dict_values, dict_copy, dict_get, dict_items = dict_.keys, dict_.values, dict_.copy, dict_.get, dict_.items
    list_iter, deque_iter, set_iter = list.__iter__, collections.deque.__iter__, set.__iter__
    is_ = operator.is_
    object_getattribute = bound["object"].__getattribute__
    modules_dict = sys.modules
    getcontext = decimal.getcontext
    getrecursionlimit, get_int_max_str_digits, getswitchinterval = sys.getrecursionlimit, sys.get_int_max_str_digits, sys.getswitchinterval
    gc_get_threshold, gc_isenabled = gc.get_threshold, gc.isenabled
    dict_types = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)
    sequence_types = (list, collections.deque)
    skipped_types = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)

    def kept_copy(container):
        kind = type_(container)
        if kind in dict_types:
            return dict_copy(container)
        if kind is list:
            return list_(list_iter(container))
        if kind is collections.deque:
            return list_(deque_iter(container))
        if kind is set:
            return list_(set_iter(container))
        return bytes_(container)

    proxy_keys, proxy_values, proxy_items = types.MappingProxyType.keys, types.MappingProxyType.values, types.MappingProxyType.items
    type_namespace = type.__dict__["__dict__"].__get__

    def unchanged(container, kept):
        kind = type_(container)
        if kind in dict_types:
            return (len_(container) == len_(kept) and all_(map_(is_, dict_keys(container), dict_keys(kept)))
                    and all_(map_(is_, dict_values(container), dict_values(kept))))
        if kind in sequence_types:
            items = list_iter(container) if kind is list else deque_iter(container)
            return len_(container) == len_(kept) and all_(map_(is_, items, kept))
        if kind is set:
            return len_(container) == len_(kept) and all_(map_(is_, set_iter(container), kept))
        if isinstance_(container, type):
            # A class: assigning a class attribute fires no audit event, so its namespace is compared.
            namespace = type_namespace(container)
            return (len_(namespace) == len_(kept) and all_(map_(is_, proxy_keys(namespace), dict_keys(kept)))
                    and all_(map_(is_, proxy_values(namespace), dict_values(kept))))
        return bytes_(container) == kept

    def settings(gc_enabled):
        context = getcontext()
        return (
            getrecursionlimit(), get_int_max_str_digits(), getswitchinterval(), gc_enabled, gc_get_threshold(),
            context.prec, context.rounding, context.Emin, context.Emax, context.capitals, context.clamp,
            tuple(sorted((signal.__name__, bool(flag)) for signal, flag in context.traps.items())),
        )

    def capture_module(name, module):
        """[(label, owner or None, container, kept copy)] for one module."""
        namespace = getattr_(module, "__dict__", None)
        if type_(namespace) is not dict:
            return []
        entries = [(name, None, namespace, dict_copy(namespace))]
        for attribute, value in list_(dict_items(namespace)):
            if f"{name}.{attribute}" in CACHE_ATTRIBUTES:
                continue
            if isinstance_(value, type):
                if getattr_(value, "__module__", None) == name and not value.__flags__ & IMMUTABLE_TYPE:
                    entries.append((f"{name}.{attribute} (class)", None, value, dict_(proxy_items(type_namespace(value)))))
                continue
            if isinstance_(value, skipped_types):
                continue
            kind = type_(value)
            if kind in dict_types or kind in sequence_types or kind is set or kind is bytearray:
                entries.append((f"{name}.{attribute}", None, value, kept_copy(value)))
                continue
            if kind.__module__.partition(".")[0] in BLOCKED_IMPORTS:
                continue
            try:
                attributes = object_getattribute(value, "__dict__")
            except Exception:
                continue
            if type_(attributes) is dict:
                entries.append((f"{name}.{attribute}.__dict__", value, attributes, dict_copy(attributes)))
        return entries

    def entry_differs(entry):
        label, owner, container, kept = entry
        if owner is not None:
            try:
                if object_getattribute(owner, "__dict__") is not container:
                    return True
            except Exception:
                return True
        return not unchanged(container, kept)

    groups = {}  # module name -> (module, entries); hidden modules (not in sys.modules) included
    baseline = {}

    def rebase(hidden_modules):
        """Takes the current state as clean: re-captures every module that changed or appeared.
        Only ever called when no environment code has run in this interpreter."""
        current = dict_(hidden_modules)
        current.update(dict_items(modules_dict))
        for name in [name for name in groups if name not in current]:
            del groups[name]
        for name, module in current.items():
            group = groups.get(name)
            if group is None or group[0] is not module or any(map_(entry_differs, group[1])):
                groups[name] = (module, capture_module(name, module))
        baseline["entries"] = [entry for _module, entries in groups.values() for entry in entries]
        baseline["modules"] = dict_copy(modules_dict)
        baseline["context"] = getcontext()
        baseline["settings"] = settings(gc_isenabled())

    def first_difference(gc_enabled):
        """The label of the first thing that differs from the baseline, or None."""
        if getcontext() is not baseline["context"] or settings(gc_enabled) != baseline["settings"]:
            return "interpreter settings (recursion limit, int digits, gc or the decimal context)"
        known_modules = baseline["modules"]
        if len_(modules_dict) != len_(known_modules):
            return "the set of modules in sys.modules"
        for name, module in dict_items(known_modules):
            if dict_get(modules_dict, name) is not module:
                return f"sys.modules[{name!r}]"
        for entry in baseline["entries"]:
            if entry_differs(entry):
                return entry[0]
        return None

    def drop_new_modules():
        known_modules = baseline["modules"]
        for name in [name for name in dict_keys(modules_dict) if name not in known_modules]:
            dict_.pop(modules_dict, name, None)

    return first_difference, rebase, drop_new_modules


def _refuse(name):
    def refused(*args, **kwargs):
        raise PermissionError(f"{name} is not available in the SPADE sandbox")
    refused.__name__ = name.rpartition(".")[2]
    refused.__qualname__ = refused.__name__
    return refused


def prepare():
    """Prepares this interpreter for environment code, before the memory snapshot: adds the
    audit hook, builds the request handler and captures the baseline. Interpreters made from
    the snapshot then only need ``connect``."""
    # Emscripten runs os.system through the host's child_process, which the sandbox forbids; the
    # refusal would arrive as a JavaScript error that breaks the interpreter. Refuse it in Python.
    for module in (os, posix):
        module.system = _refuse("os.system")
    bound = dict(vars(builtins))
    isinstance_, len_, str_, int_, float_, type_, callable_, getattr_ = isinstance, len, str, int, float, type, callable, getattr
    json_loads, json_dumps = json.loads, json.dumps
    math_isfinite = math.isfinite
    random_seed = random.seed
    gc_collect, gc_isenabled = gc.collect, gc.isenabled
    linecache_cache = linecache.cache
    modules_dict = sys.modules
    extract_tb, format_list, format_exception_only = traceback.extract_tb, traceback.format_list, traceback.format_exception_only
    writer_take = _CappedWriter.take
    tool_base = spade_env.ToolUseBaseEnv
    # The bridges are scrubbed in connect(): Pyodide's snapshot needs its JavaScript handles.
    # "on": environment code may run, every tainting event counts; "format": formatting an
    # environment's traceback, which reads frames itself; "off": only harness code runs.
    state = {"mode": "off", "env_globals": None, "mark": None, "connected": False}

    def audit(event, args):
        mode = state["mode"]
        if mode == "off":
            return
        reason = None
        if event in TAINTING_EVENTS:
            if event != "import" or str_(args[0]).partition(".")[0] in BLOCKED_IMPORTS:
                reason = event
        elif event.startswith("ctypes."):
            reason = event
        elif event == "open":
            mode_arg, flags = args[1], args[2]
            if (type_(mode_arg) is str and any(letter in mode_arg for letter in "wax+")) or (type_(flags) is int and flags & WRITE_FLAGS):
                reason = f"open({args[0]!r}) for writing"
        elif event == "object.__getattr__":
            if args[1] in FRAME_ATTRIBUTES and mode != "format":
                reason = f"read of .{args[1]}"
        elif event in ("object.__setattr__", "object.__delattr__"):
            target = args[0]
            if type_(target) is types.FunctionType:
                mine = target.__globals__ is state["env_globals"]
            elif isinstance_(target, type):
                mine = type.__getattribute__(target, "__module__") == ENV_MODULE
            else:
                mine = False
            if not mine:
                reason = f"{event} {args[1]!r} on {type_(target).__name__}"
        if reason is not None:
            mark_tainted(reason)

    def mark_tainted(reason):
        mark = state["mark"]
        if mark is not None:
            mark(reason)

    def during_collection(phase, info):
        # Finalizers of environment objects can run in any garbage collection, also one that
        # harness code triggers: arm the hook for the duration of every collection.
        if phase == "start":
            state["mode_before_gc"] = state["mode"]
            if state["mode"] == "off":
                state["mode"] = "on"
        else:
            state["mode"] = state.pop("mode_before_gc", "off")

    sys.addaudithook(audit)
    gc.callbacks.append(during_collection)
    first_difference, rebase, drop_new_modules = _make_baseline(bound)
    rebase([])
    session = {}

    def cap_observation(observation):
        observation = str_.__str__(observation)
        limit = session["max_observation_chars"]
        if len_(observation) <= limit:
            return observation
        return observation[:limit] + f"\n[observation truncated: {len_(observation)} characters exceed the {limit} character limit]"

    def checked_info(info, where):
        if not isinstance_(info, dict):
            raise ContractError(f"{where}: info must be a dict, got {_type_name(info)}")
        converted = _jsonable(info)
        size = len_(json_dumps(converted))
        limit = session["max_observation_chars"]
        if size > limit:
            raise ContractError(f"{where}: info is {size} characters as JSON, over the {limit} character limit")
        return converted

    def tuple_shape(result, length, where, shape):
        if not isinstance_(result, tuple) or len_(result) != length:
            got = f"a tuple of length {len_(result)}" if isinstance_(result, tuple) else f"a {_type_name(result)}"
            raise ContractError(f"{where} must return {shape}, got {got}")

    def op_open(request):
        code = str_(request["code"])
        module = types.ModuleType(ENV_MODULE)
        module.__file__ = ENV_FILE
        namespace = module.__dict__
        namespace["ToolUseBaseEnv"] = tool_base
        state["env_globals"] = namespace
        modules_dict[ENV_MODULE] = module
        session["code"] = code
        linecache_cache[ENV_FILE] = (len_(code), None, code.splitlines(True), ENV_FILE)
        session["stage"] = "compile"
        compiled = compile(code, ENV_FILE, "exec", dont_inherit=True)
        random_seed(0)
        session["stage"] = "execute"
        exec(compiled, namespace)
        session["stage"] = "find_class"
        candidates = [
            value for key, value in list(namespace.items())
            if type_(key) is str and isinstance_(value, type) and key.endswith("Env") and value.__module__ == ENV_MODULE
        ]
        leaves = [cls for cls in candidates if not any(other is not cls and issubclass(other, cls) for other in candidates)]
        if not candidates:
            raise ContractError("no class whose name ends in 'Env' is defined at the top level of the code")
        if len_(leaves) != 1:
            names = ", ".join(sorted(cls.__name__ for cls in leaves))
            raise ContractError(f"expected exactly one class ending in 'Env', found {len_(leaves)}: {names}")
        cls = leaves[0]
        session["class_name"] = str_(cls.__name__)
        random_seed(0)
        session["stage"] = "construct"
        env = cls()
        session["env"] = env
        kind = "tool" if issubclass(cls, tool_base) else "text"
        tools = None
        if kind == "tool":
            session["stage"] = "get_tools"
            tools = env.get_tools()
            if not isinstance_(tools, list) or not all(isinstance_(tool, dict) for tool in tools):
                raise ContractError(f"get_tools() must return a list of dicts, got {_type_name(tools)}")
            tools = _jsonable(tools)
        return {"className": session["class_name"], "kind": kind, "tools": tools, "hasHint": callable_(getattr_(cls, "hint", None))}

    def op_reset(request):
        env = session["env"]
        seed = int_(request["seed"])
        where = f"reset(seed={seed})"
        random_seed(seed)
        result = env.reset(seed=seed)
        tuple_shape(result, 2, where, "a tuple (observation: str, info: dict)")
        observation, info = result
        if not isinstance_(observation, str):
            raise ContractError(f"{where}: observation must be a str, got {_type_name(observation)}")
        return {"observation": cap_observation(observation), "info": checked_info(info, where)}

    def op_step(request):
        env = session["env"]
        where = "step()"
        result = env.step(str_(request["action"]))
        tuple_shape(result, 5, where, "a 5-tuple (observation, reward, terminated, truncated, info)")
        observation, reward, terminated, truncated, info = result
        if not isinstance_(observation, str):
            raise ContractError(f"{where}: observation must be a str, got {_type_name(observation)}")
        if not isinstance_(reward, (int, float)):
            raise ContractError(f"{where}: reward must be a number (int or float), got {_type_name(reward)}")
        for name, flag in (("terminated", terminated), ("truncated", truncated)):
            if type_(flag) is not bool:
                raise ContractError(f"{where}: {name} must be a bool, got {_type_name(flag)}")
        try:
            number = float_(reward)
        except OverflowError:
            raise ContractError(f"{where}: reward {reward} does not fit in a float") from None
        return {
            "observation": cap_observation(observation),
            "reward": number if math_isfinite(number) else repr(number),
            "terminated": terminated,
            "truncated": truncated,
            "info": checked_info(info, where),
        }

    def op_hint(request):
        env = session["env"]
        if not callable_(getattr_(type_(env), "hint", None)):
            return {"hint": None}
        hint = env.hint()
        if not isinstance_(hint, str):
            raise ContractError(f"hint() must return a str, got {_type_name(hint)}")
        return {"hint": str_.__str__(hint)}

    def op_solution(request):
        env = session["env"]
        if not callable_(getattr_(type_(env), "solution", None)):
            raise ContractError("the environment has no solution() method")
        solution = env.solution()
        if not isinstance_(solution, str):
            raise ContractError(f"solution() must return a str, got {_type_name(solution)}")
        return {"solution": str_.__str__(solution)}

    def op_close(request):
        env = session.get("env")
        error = None
        if env is not None and callable_(getattr_(type_(env), "close", None)):
            try:
                env.close()
            except BaseException as exc:  # reported, but the session still ends
                error = f"{type_(exc).__name__}: {exc}"
        session.clear()
        env = None
        state["env_globals"] = None
        linecache_cache.pop(ENV_FILE, None)
        drop_new_modules()
        # The environment's young objects go now; older ones in a later collection, which arms
        # the hook as well (during_collection).
        gc_collect(0)
        state["mode"] = "off"
        sys.stdout, sys.stderr = state["streams"]
        if not request.get("check", True):
            return {"clean": None, "difference": None, "closeError": error}
        difference = first_difference(gc_isenabled())
        return {"clean": difference is None, "difference": difference, "closeError": error}

    def op_check(request):
        """The cleanliness verdict on its own: the host runs it when idle, or before reusing this
        interpreter for the same code, instead of at every close."""
        state["mode"] = "off"
        difference = first_difference(gc_isenabled())
        return {"clean": difference is None, "difference": difference, "closeError": None}

    operations = {"open": op_open, "reset": op_reset, "step": op_step, "hint": op_hint, "solution": op_solution, "close": op_close, "check": op_check}

    def error_response(kind, exc, op):
        state["mode"] = "format"
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != ENV_FILE:
            tb = tb.tb_next
        line = None
        walker = tb
        while walker is not None:
            if walker.tb_frame.f_code.co_filename == ENV_FILE:
                line = walker.tb_lineno
            walker = walker.tb_next
        if isinstance_(exc, SyntaxError) and exc.filename == ENV_FILE:
            line = exc.lineno
        if "code" in session:
            code = session["code"]
            linecache_cache[ENV_FILE] = (len_(code), None, code.splitlines(True), ENV_FILE)
        try:
            summary = "".join(format_exception_only(type_(exc), exc)).strip()
            if isinstance_(exc, SyntaxError):
                summary = summary.rpartition("\n")[2]  # the other lines (file, code, caret) are in the traceback
            frames = "".join(format_list(extract_tb(tb))) if tb is not None else ""
            text = ("Traceback (most recent call last):\n" + frames if frames else "") + summary + "\n"
        except BaseException:  # an exception whose str() itself fails
            text = summary = type_(exc).__name__
        return {"kind": kind, "op": op, "stage": session.get("stage"), "className": session.get("class_name"), "exception": summary, "traceback": text, "line": line}

    # What handle() answers when environment code broke something the harness itself relies
    # on (json, builtins...): a constant, so producing it needs nothing that could be patched.
    broken_harness = (
        '{"ok": false, "error": {"kind": "code", "op": "sandbox", "stage": null, "className": null, '
        '"exception": "the environment changed something the sandbox harness relies on (a builtin or a '
        'standard module), so this call could not be answered", "traceback": "", "line": null}, "printed": ""}'
    )

    def handle(request_json):
        try:
            return answer(request_json)
        except BaseException:
            state["mode"] = "off"
            mark_tainted("the environment broke the harness")
            return broken_harness

    def answer(request_json):
        request = json_loads(request_json)
        op = request.get("op")
        session.pop("stage", None)
        if op == "open":
            session.clear()
            session["writer"] = _CappedWriter(int_(request["maxPrintChars"]))
            session["max_observation_chars"] = int_(request["maxObservationChars"])
        writer = session.get("writer")
        saved_streams = state["streams"] = (sys.stdout, sys.stderr)
        if writer is not None:
            sys.stdout = sys.stderr = writer
        state["mode"] = "on"
        try:
            operation = operations.get(op)
            if operation is None:
                raise ContractError(f"unknown sandbox operation {op!r}")
            if op not in ("open", "close", "check") and "env" not in session:
                raise ContractError(f"{op}() called before the environment was created")
            response = {"ok": True, "result": operation(request)}
        except ContractError as exc:
            response = {"ok": False, "error": {"kind": "contract", "op": op, "stage": session.get("stage"), "className": session.get("class_name"), "exception": str_.__str__(str_(exc)), "traceback": "", "line": None}}
        except MemoryError as exc:
            mark_tainted("MemoryError")
            response = {"ok": False, "error": error_response("memory", exc, op)}
        except BaseException as exc:  # SystemExit and KeyboardInterrupt from environment code too
            response = {"ok": False, "error": error_response("code", exc, op)}
        finally:
            state["mode"] = "off"
            sys.stdout, sys.stderr = saved_streams
        response["printed"] = writer_take(writer) if writer is not None else ""
        return json_dumps(response)

    def connect(mark):
        """Run once in each interpreter (the snapshotted one and every one made from it):
        removes the bridges Pyodide re-registered, takes the restored state as the baseline,
        hides this module and returns the request handler. ``mark(reason)`` is the host's
        one-way taint flag."""
        if state["connected"]:
            raise RuntimeError("connect() may run once per interpreter")
        state["connected"] = True
        hidden = _scrub_bridges()
        this_module = modules_dict.pop(__name__, None)
        if this_module is not None:
            hidden.append((__name__, this_module))
        rebase(hidden)
        state["mark"] = mark
        return handle

    globals()["connect"] = connect

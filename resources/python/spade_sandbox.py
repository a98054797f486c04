"""The Python half of the SPADE sandbox: runs one environment for the host.

The host (main/sandbox/child/sandboxHost.mjs) imports this module into a fresh Pyodide
interpreter, calls ``prepare()``, takes a memory snapshot, and in every interpreter made from it
calls ``connect()`` once, then ``handle(request_json) -> response_json`` per request. The host
copies the interpreter's memory right after ``connect()`` and puts that copy back before every
play after the first, so no state survives from one play to the next; this module does not check
cleanliness, it only has to hold for the duration of one play.

``prepare`` clears bridge objects from every module's namespace before the snapshot, and
``connect`` takes every remaining road to JavaScript away from Python (spade_bridges.py: what the
restore changed, the bridge modules, the FFI classes), removes this module from ``sys.modules``
and arms the audit hook. The functions put in place of the entropy
and clock sources and Pyodide's event loop live in spade_determinism.py. The audit
hook (which Python code cannot remove) then refuses, while environment code may run: importing
the bridges or ``ctypes``; getting hold of frames (``sys._getframe``, ``tb_frame``, ``gi_frame``
...), tracing and profiling; walking the object graph through ``gc``; writing files; starting or
signalling processes; and changing functions or classes the environment did not define. The
harness keeps no Python-level object that environment code can reach: it defines no classes
with methods, uses a C-level ``io.StringIO`` for printed output, and keeps its state in closures.

Every value returned to the host is checked by exact type here and converted by the harness (never
by the environment's own ``__str__``, ``__len__``, ``__float__``...), and checked again by the host.
"""

import collections
import gc
import io
import json
import linecache
import math
import os
import posix
import random
import sys
import time
import types

# Standard-library modules environments commonly use, imported before the snapshot so a session
# never pays for them.
PRELOADED = (
    "abc", "array", "ast", "base64", "binascii", "bisect", "calendar", "cmath", "collections",
    "collections.abc", "contextlib", "copy", "dataclasses", "datetime", "decimal", "difflib",
    "enum", "fractions", "functools", "graphlib", "hashlib", "heapq", "inspect", "itertools",
    "json", "keyword", "math", "numbers", "operator", "pprint", "random", "re", "statistics",
    "string", "struct", "textwrap", "time", "typing", "unicodedata", "warnings", "zlib", "uuid", "secrets",
)
for _name in PRELOADED:
    __import__(_name)

import spade_env  # noqa: E402
import spade_repair  # noqa: E402
import spade_determinism  # noqa: E402
from spade_bridges import seal_bridges, seal_namespaces  # noqa: E402

ENV_MODULE = "spade_environment"
HARNESS_MODULE = __name__
ENV_FILE = "environment.py"
BLOCKED_IMPORTS = frozenset({
    "js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "ctypes", "_ctypes",
    "spade_sandbox", "spade_repair", "spade_bridges", "_testcapi", "_testinternalcapi", "_xxsubinterpreters", "_interpreters",
    "_interpqueues", "_interpchannels", "concurrent.interpreters",
})
REFUSED_EVENTS = frozenset({
    "sys._getframe", "sys._current_frames", "sys._current_exceptions", "sys.settrace",
    "sys.setprofile", "sys.monitoring.register_callback", "sys.remote_exec", "gc.get_objects",
    "gc.get_referrers", "gc.get_referents", "gc.freeze", "os.chdir", "os.putenv", "os.unsetenv",
    "os.remove", "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.link",
    "os.symlink", "os.truncate", "os.utime", "os.kill", "os.killpg", "os.system", "os.exec",
    "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.setpriority", "subprocess.Popen",
    "socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo", "socket.__new__",
    "_thread.start_new_thread", "cpython.run_interactivehook", "sys.addaudithook",
})
# fcntl commands environment code may use: they only read a descriptor's state. Any other command
# (F_SETFL, which ORs bits into the stream's flags, O_RDWR included; F_DUPFD...) is refused.
READ_ONLY_FCNTL = frozenset({1, 3})  # F_GETFD, F_GETFL
FCNTL_NAMES = {0: "F_DUPFD", 2: "F_SETFD", 4: "F_SETFL", 5: "F_GETLK", 6: "F_SETLK", 7: "F_SETLKW", 1030: "F_DUPFD_CLOEXEC"}
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "f_globals", "f_locals", "f_builtins"})
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000  # O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND
MAX_INT_BITS = 1023  # integers beyond float range are refused as rewards, sent as text in info
# The most characters of each text an environment returns (besides observations): the engine's
# TEXT_CAPS (main/sandbox/capText.ts), sent with every open, applied here before a text is
# encoded, so an oversized text never crosses the pipe.
TEXT_CAP_NAMES = ("hint", "solution", "exception", "traceback", "className", "tools")
MAX_TRACEBACK_FRAMES = 64



class ContractError(Exception):
    """The environment broke the SPADE contract (a wrong return type, a missing method...)."""


def prepare():
    """Prepares this interpreter for environment code, before the memory snapshot: makes
    randomness and time deterministic, adds the audit hook and builds the request handler.
    Interpreters made from the snapshot then only need ``connect``."""
    determinism = spade_determinism.__dict__
    # Emscripten runs os.system through the host's child_process, which the sandbox forbids; the
    # refusal would arrive as a JavaScript error that breaks the interpreter. Refuse it in Python.
    for module in (os, posix):
        module.system = determinism["refusal"]("os.system")
    # Descriptors: environment code writes only to pipes it made, never closes or replaces the
    # sandbox's standard streams and never changes a descriptor's flags (the refusals name what
    # they refused; the host's file-system lock and fingerprint hold even where Python is bypassed).
    fstat = posix.fstat
    for name in ("write", "pwrite", "writev", "pwritev", "sendfile"):
        if hasattr(posix, name):
            guarded = determinism["descriptor_writer"](f"os.{name}", getattr(posix, name), fstat)
            for module in (os, posix):
                setattr(module, name, guarded)
    for name, first in (("close", 0), ("closerange", 0), ("dup2", 1)):
        guarded = determinism["sandbox_descriptor_guard"](f"os.{name}", getattr(posix, name), first)
        for module in (os, posix):
            setattr(module, name, guarded)
    for name in ("set_blocking", "posix_fallocate", "lockf"):
        if hasattr(posix, name):
            for module in (os, posix):
                setattr(module, name, determinism["refusal"](f"os.{name}"))
    # Every builtin module is loaded now, and the loader that makes new instances of them (which
    # would hand out Pyodide's JavaScript bridge whatever sys.modules says) is refused afterwards.
    import _imp
    for name in sys.builtin_module_names:
        if name not in sys.modules and name.partition(".")[0] not in BLOCKED_IMPORTS:
            try:
                __import__(name)
            except Exception:
                pass
    _imp.create_builtin = determinism["refusal"]("loading a builtin module")
    reseed = determinism["reseed"]
    os.urandom = determinism["urandom"]
    random._urandom = determinism["urandom"]
    random.SystemRandom = determinism["SystemRandom"]
    import secrets
    secrets._sysrand = determinism["SystemRandom"]()
    secrets.SystemRandom = determinism["SystemRandom"]
    for name in ("time", "time_ns", "monotonic", "monotonic_ns"):
        setattr(time, name, determinism[name])
    time.perf_counter, time.perf_counter_ns = determinism["monotonic"], determinism["monotonic_ns"]

    isinstance_, len_, str_, int_, float_, type_, callable_, getattr_ = isinstance, len, str, int, float, type, callable, getattr
    dict_, list_, tuple_, bool_, set_, frozenset_, sorted_, repr_ = dict, list, tuple, bool, set, frozenset, sorted, repr
    dict_items, list_iter, tuple_iter = dict.items, list.__iter__, tuple.__iter__
    exec_, compile_, issubclass_, hasattr_, type_error = exec, compile, issubclass, hasattr, TypeError
    encoder = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":"), check_circular=True)
    encode = encoder.encode
    json_loads = json.loads
    math_isfinite = math.isfinite
    random_seed = random.seed
    gc_collect = gc.collect
    linecache_cache = linecache.cache
    modules_dict = sys.modules
    string_io = io.StringIO
    # Attribute reads that run no Python code whatever the object's class defines: the C
    # descriptors of the built-in types, applied directly.
    type_name = type.__dict__["__name__"].__get__
    type_module = type.__dict__["__module__"].__get__
    real_issubclass = type.__subclasscheck__
    traceback_of = BaseException.__dict__["__traceback__"].__get__
    str_len, str_slice, str_repr, str_copy = str.__len__, str.__getitem__, str.__repr__, str.__str__
    syntax_fields = {name: SyntaxError.__dict__[name].__get__ for name in ("msg", "filename", "lineno")}
    traceback_type = types.TracebackType
    tool_base = spade_env.ToolUseBaseEnv
    reference_globals = getattr(spade_env, "reference_globals", None)
    module_type, function_type = types.ModuleType, types.FunctionType
    # The hook is armed once by connect() and never disarmed: there is no mode in which checks are
    # relaxed. The one exception is exact: the harness may read `tb_frame` of the single traceback
    # object it is walking at that moment (no environment code runs during the walk).
    state = {"armed": False, "env_globals": None, "connected": False}
    frame_permit = [None]

    def describe(value):
        """A value for a refusal message, without running any of its methods."""
        return str_repr(value) if type_(value) is str_ else f"<{type_name(type_(value))}>"

    def audit(event, args):
        if not state["armed"]:
            return
        reason = None
        if event == "import":
            name = args[0]
            if type_(name) is str and (name in BLOCKED_IMPORTS or name.partition(".")[0] in BLOCKED_IMPORTS):
                raise ModuleNotFoundError(f"import of {name!r} is not allowed in the SPADE sandbox", name=name)
            return
        if event in REFUSED_EVENTS or event.startswith("ctypes.") or event.startswith("os.exec") or event.startswith("os.spawn"):
            reason = event
        elif event == "open":
            mode_arg, flags = args[1], args[2]
            if type_(args[0]) is int_:
                # A file object over an existing descriptor would close it (the sandbox's standard streams).
                reason = f"open({args[0]}) of a descriptor"
            elif (type_(mode_arg) is str and any(letter in mode_arg for letter in "wax+")) or (type_(flags) is int and flags & WRITE_FLAGS):
                reason = f"open({describe(args[0])}) for writing"
        elif event == "fcntl.fcntl":
            command = args[1]
            if type_(command) is not int_ or command not in READ_ONLY_FCNTL:
                shown = FCNTL_NAMES.get(command, str_(command)) if type_(command) is int_ else "?"
                reason = f"fcntl({args[0] if type_(args[0]) is int_ else '?'}, {shown}) (it changes the descriptor)"
        elif event in ("fcntl.ioctl", "fcntl.flock", "fcntl.lockf"):
            reason = event
        elif event == "mmap.__new__":
            if type_(args[0]) is not int_ or args[0] != -1:
                reason = f"mmap of descriptor {args[0] if type_(args[0]) is int_ else '?'}"
        elif event == "object.__getattr__":
            name = args[1]
            if type_(name) is not str_ or name in FRAME_ATTRIBUTES:
                if not (name == "tb_frame" and args[0] is frame_permit[0] and type_(args[0]) is traceback_type):
                    reason = f"reading .{describe(name)}"
        elif event in ("object.__setattr__", "object.__delattr__"):
            target = args[0]
            if type_(target) is function_type:
                mine = target.__globals__ is state["env_globals"]
            elif real_issubclass(type, type_(target)):
                module = type_module(target)
                mine = type_(module) is str_ and module == ENV_MODULE
            else:
                mine = False
            if not mine:
                reason = f"{event} {describe(args[1])} on {type_name(type_(target))}"
        if reason is not None:
            raise PermissionError(f"{reason} is not allowed in the SPADE sandbox")

    sys.addaudithook(audit)
    session = {}

    def cap_observation(observation, where):
        if type_(observation) is not str:
            raise ContractError(f"{where}: observation must be a str, got {type_name(type_(observation))}")
        limit = session["max_observation_chars"]
        if str_.__len__(observation) <= limit:
            return observation
        return str_.__getitem__(observation, slice(0, limit)) + f"\n[observation truncated: {str_.__len__(observation)} characters exceed the {limit} character limit]"

    def convert(value, depth, where):
        """A JSON-safe copy of an info value by exact type: lists for tuples and sets (sorted),
        text for non-finite floats, huge integers and any other object (its type's name)."""
        if depth > 32:
            raise ContractError(f"{where}: info nests deeper than 32 levels")
        kind = type_(value)
        if value is None or kind is bool_ or kind is str_:
            return value
        if kind is int_:
            return value if -2**53 <= value <= 2**53 else int_.__repr__(value)
        if kind is float_:
            return value if math_isfinite(value) else float_.__repr__(value)
        if kind is dict_:
            converted = {}
            for key, item in dict_items(value):
                if type_(key) is not str:
                    raise ContractError(f"{where}: info keys must be str, got {type_name(type_(key))}")
                converted[key] = convert(item, depth + 1, where)
            return converted
        if kind is list_ or kind is tuple_:
            return [convert(item, depth + 1, where) for item in (list_iter(value) if kind is list_ else tuple_iter(value))]
        if kind is set_ or kind is frozenset_:
            items = [convert(item, depth + 1, where) for item in kind.__iter__(value)]
            return sorted_(items, key=encode)
        return f"<{type_name(kind)} object>"

    def checked_info(info, where):
        if type_(info) is not dict_:
            raise ContractError(f"{where}: info must be a dict, got {type_name(type_(info))}")
        converted = convert(info, 0, where)
        size = len_(encode(converted))
        limit = session["max_observation_chars"]
        if size > limit:
            raise ContractError(f"{where}: info is {size} characters as JSON, over the {limit} character limit")
        return converted

    def unpack(result, length, where, shape):
        if type_(result) is not tuple_ or tuple_.__len__(result) != length:
            got = f"a tuple of length {tuple_.__len__(result)}" if type_(result) is tuple_ else f"a {type_name(type_(result))}"
            raise ContractError(f"{where} must return {shape}, got {got}")
        return list_(tuple_iter(result))

    def checked_reward(reward, where):
        kind = type_(reward)
        if kind is int_:
            if int_.bit_length(reward) > MAX_INT_BITS:
                raise ContractError(f"{where}: reward {int_.__repr__(reward)[:40]} does not fit in a float")
            return float_(reward)
        if kind is not float_:
            raise ContractError(f"{where}: reward must be an int or a float, got {type_name(kind)}")
        if not math_isfinite(reward):
            raise ContractError(f"{where}: reward is {float_.__repr__(reward)}; rewards must be finite numbers")
        return reward

    def missing_module(exc):
        name = exc.name if type_(exc.name) is str else None
        if name is None or "not allowed in the SPADE sandbox" in str_.__str__(str_(exc.args[0] if exc.args else "")):
            return None
        top = name.partition(".")[0]
        return top if top != ENV_MODULE else None

    def op_open(request):
        code = request["code"]
        if type_(code) is not str:
            raise ContractError("open: the code must be a str")
        module = module_type(ENV_MODULE)
        module.__file__ = ENV_FILE
        namespace = module.__dict__
        if callable_(reference_globals):
            namespace.update(reference_globals())
        namespace["ToolUseBaseEnv"] = tool_base
        state["env_globals"] = namespace
        modules_dict[ENV_MODULE] = module
        session["code"] = code
        linecache_cache[ENV_FILE] = (len_(code), None, code.splitlines(True), ENV_FILE)
        session["stage"] = "compile"
        compiled = compile_(code, ENV_FILE, "exec", dont_inherit=True)
        random_seed(0)
        reseed(0)
        session["stage"] = "execute"
        try:
            exec_(compiled, namespace)
        except ModuleNotFoundError as exc:
            missing = missing_module(exc)
            if missing is None:
                raise
            raise ContractError(f'module "{missing}" is not available in the sandbox (standard library only)') from None
        session["stage"] = "find_class"
        def defined_here(value):
            if not real_issubclass(type, type_(value)):
                return False
            module = type_module(value)
            return type_(module) is str_ and module == ENV_MODULE
        candidates = [
            value for key, value in list_(dict_items(namespace))
            if type_(key) is str and str_.endswith(key, "Env") and defined_here(value)
        ]
        leaves = [cls for cls in candidates if not any(other is not cls and real_issubclass(cls, other) for other in candidates)]
        if not candidates:
            raise ContractError("no class whose name ends in 'Env' is defined at the top level of the code")
        if len_(leaves) != 1:
            names = ", ".join(sorted_(type_name(cls) for cls in leaves))
            raise ContractError(f"expected exactly one class ending in 'Env', found {len_(leaves)}: {names}")
        cls = leaves[0]
        session["class_name"] = capped(type_name(cls), "className", "class name")
        random_seed(0)
        reseed(0)
        session["stage"] = "construct"
        max_turns = session.get("max_turns")
        if max_turns is None:
            env = cls()
        else:
            # The reference's training plays (orchestrator.py, make_synthetic_env(...,
            # respect_game_max_turns=True); synthetic_game_env.py _load_game_from_code): the class
            # is built without arguments, with max_turns=<the run's> only when that raises a
            # TypeError; the game's own max_turns is then capped at the run's (a positive int), or
            # set to it (anything else). Reading or setting it runs the game's code, so it may raise:
            # that is the open's error, as the reference's "Failed to instantiate game class".
            try:
                env = cls()
            except type_error:
                env = cls(max_turns=max_turns)
            designed = getattr_(env, "max_turns", None)
            # By exact type, compared by int's own methods: no method of the game's value runs.
            if real_issubclass(int_, type_(designed)) and int_.__gt__(designed, 0):
                env.max_turns = designed if int_.__le__(designed, max_turns) else max_turns
            elif hasattr_(env, "max_turns"):
                env.max_turns = max_turns
        session["env"] = env
        kind = "tool" if real_issubclass(tool_base, cls) else "text"
        tools = None
        if kind == "tool":
            session["stage"] = "get_tools"
            tools = env.get_tools()
            if type_(tools) is not list_ or not all(type_(tool) is dict_ for tool in list_iter(tools)):
                raise ContractError(f"get_tools() must return a list of dicts, got {type_name(type_(tools))}")
            tools = convert(tools, 0, "get_tools()")
            caps = session.get("text_caps")
            size = len_(encode(tools))
            if caps is not None and size > caps["tools"]:
                # The engine's wording (checkedToolSchemas.ts): the schemas are stored with every episode and sent with every request.
                raise ContractError(f"get_tools() answered {size} characters of tool schemas as JSON, over the {caps['tools']} character limit")
        return {"className": session["class_name"], "kind": kind, "tools": tools, "hasHint": callable_(getattr_(cls, "hint", None))}

    def op_reset(request):
        env = session["env"]
        seed = request["seed"]
        if type_(seed) is not int_:
            raise ContractError("reset: the seed must be an int")
        where = f"reset(seed={seed})"
        random_seed(seed)
        reseed(seed)
        observation, info = unpack(env.reset(seed=seed), 2, where, "a tuple (observation: str, info: dict)")
        return {"observation": cap_observation(observation, where), "info": checked_info(info, where)}

    def op_step(request):
        env = session["env"]
        action = request["action"]
        if type_(action) is not str:
            raise ContractError("step: the action must be a str")
        where = "step()"
        observation, reward, terminated, truncated, info = unpack(env.step(action), 5, where, "a 5-tuple (observation, reward, terminated, truncated, info)")
        observation = cap_observation(observation, where)
        for name, flag in (("terminated", terminated), ("truncated", truncated)):
            if type_(flag) is not bool_:
                raise ContractError(f"{where}: {name} must be a bool, got {type_name(type_(flag))}")
        return {"observation": observation, "reward": checked_reward(reward, where), "terminated": terminated, "truncated": truncated, "info": checked_info(info, where)}

    def op_hint(request):
        env = session["env"]
        if not callable_(getattr_(type_(env), "hint", None)):
            return {"hint": None}
        hint = env.hint()
        if type_(hint) is not str:
            raise ContractError(f"hint() must return a str, got {type_name(type_(hint))}")
        return {"hint": capped(hint, "hint", "hint")}

    def op_solution(request):
        env = session["env"]
        if not callable_(getattr_(type_(env), "solution", None)):
            raise ContractError("the environment has no solution() method")
        solution = env.solution()
        if type_(solution) is not str:
            raise ContractError(f"solution() must return a str, got {type_name(type_(solution))}")
        return {"solution": capped(solution, "solution", "solution")}

    def op_close(request):
        env = session.get("env")
        error = None
        if env is not None and callable_(getattr_(type_(env), "close", None)):
            try:
                env.close()
            except BaseException as exc:  # reported, but the session still ends
                error = capped(type_name(type_(exc)), "className", "class name")
        session.clear()
        env = None
        gc_collect(0)
        return {"clean": None, "difference": None, "closeError": error}

    repair_braces = spade_repair.repair

    def op_repair(request):
        """The reference's f-string brace repair of the code: only parses it, never runs it. A
        parser failure other than a syntax error (a stack overflow on deep nesting...) leaves the
        code unchanged and is named in ``failure``."""
        code = request["code"]
        if type_(code) is not str:
            raise ContractError("repair: the code must be a str")
        try:
            repaired, rounds, parses = repair_braces(code)
        except Exception as exc:
            return {"code": None, "rounds": 0, "parses": False, "failure": type_name(type_(exc))}
        return {"code": None if repaired == code else repaired, "rounds": rounds, "parses": parses, "failure": None}

    operations = {"open": op_open, "reset": op_reset, "step": op_step, "hint": op_hint, "solution": op_solution, "close": op_close, "repair": op_repair}

    def cut(text, limit, what):
        if str_len(text) <= limit:
            return text
        return str_slice(text, slice(0, limit)) + f"\n[{what} truncated: {str_len(text)} characters exceed the {limit} character limit]"

    def capped(text, cap, what):
        """`text` cut to the engine's cap of that name (none before the first open)."""
        caps = session.get("text_caps")
        return cut(text, caps[cap], what) if caps is not None else text

    def raw_frames(exc):
        """(file, line, function) of each traceback entry, read with the audit armed: only the C
        descriptors of tracebacks, frames and code objects run, so no environment code can."""
        frames = []
        tb = traceback_of(exc)
        while tb is not None and len_(frames) < MAX_TRACEBACK_FRAMES:
            frame_permit[0] = tb
            try:
                frame = tb.tb_frame
            finally:
                frame_permit[0] = None
            code = frame.f_code
            frames.append((code.co_filename, tb.tb_lineno, code.co_name))
            tb = tb.tb_next
        return frames

    def error_response(kind, exc, op):
        # The message comes from the exception's own __str__ (environment code, run with the
        # audit armed like all of it); everything else is read from raw data by the harness.
        exc_type = type_(exc)
        summary = capped(type_name(exc_type), "className", "class name")
        line = None
        if exc_type is SyntaxError or exc_type is IndentationError or exc_type is TabError:
            message, filename, lineno = (syntax_fields[name](exc) for name in ("msg", "filename", "lineno"))
            if type_(message) is str_:
                summary = f"{summary}: {str_copy(message)}"
            if type_(filename) is str_ and filename == ENV_FILE and type_(lineno) is int_:
                line = lineno
        else:
            try:
                message = str_(exc)
                if type_(message) is not str_:
                    message = str_copy(message)
                if message:
                    summary = f"{summary}: {message}"
            except BaseException:  # an exception whose str() itself fails
                pass
        # Cut as the engine cuts the whole exception text ("ValueError: ..."), which it then keeps as it is.
        summary = capped(summary, "exception", "exception message")
        text = summary + "\n"
        try:
            frames = raw_frames(exc)
            first = 0
            while first < len_(frames) and frames[first][0] != ENV_FILE:
                first += 1
            frames = frames[first:]
            code_lines = str_.splitlines(session["code"]) if type_(session.get("code")) is str_ else []
            listed = []
            for filename, lineno, name in frames:
                if filename == ENV_FILE:
                    line = lineno
                entry = f'  File "{filename}", line {lineno}, in {name}\n'
                if filename == ENV_FILE and type_(lineno) is int_ and 0 < lineno <= len_(code_lines):
                    entry += f"    {str_.strip(code_lines[lineno - 1])}\n"
                listed.append(entry)
            if listed:
                text = "Traceback (most recent call last):\n" + "".join(listed) + summary + "\n"
        except BaseException:
            pass
        return {"kind": kind, "op": op, "stage": session.get("stage"), "className": session.get("class_name"), "exception": str_(summary), "traceback": capped(str_(text), "traceback", "traceback"), "line": line if type_(line) is int_ else None}

    # What handle() answers when environment code broke something the harness itself relies
    # on: a constant, so producing it needs nothing that could be patched.
    broken_harness = (
        '{"ok":false,"error":{"kind":"code","op":"sandbox","stage":null,"className":null,'
        '"exception":"the environment changed something the sandbox harness relies on (a builtin or a '
        'standard module), so this call could not be answered","traceback":"","line":null},"printed":""}'
    )

    def handle(request_json):
        try:
            return answer(request_json)
        except BaseException:
            return broken_harness

    def answer(request_json):
        request = json_loads(request_json)
        op = request.get("op")
        session.pop("stage", None)
        if op == "open":
            session.clear()
            session["max_print_chars"] = int_(request["maxPrintChars"])
            session["max_observation_chars"] = int_(request["maxObservationChars"])
            caps = request.get("textCaps")  # absent only for the host's own warm-up game
            session["text_caps"] = None if caps is None else {name: int_(caps[name]) for name in TEXT_CAP_NAMES}
            # The run's turn limit, an int from the engine (absent: the class is built as it stands).
            max_turns = request.get("maxTurns")
            if max_turns is not None and (type_(max_turns) is not int_ or max_turns < 1):
                raise ValueError("open: maxTurns must be a whole number of at least 1")
            session["max_turns"] = max_turns
        writer = string_io()
        saved_streams = (sys.stdout, sys.stderr)
        sys.stdout = sys.stderr = writer
        try:
            operation = operations.get(op)
            if operation is None:
                raise ContractError(f"unknown sandbox operation {op!r}")
            if op not in ("open", "close", "repair") and "env" not in session:
                raise ContractError(f"{op}() called before the environment was created")
            response = {"ok": True, "result": operation(request)}
        except ContractError as exc:
            # Contract messages quote names the environment chose (its classes' names).
            message = capped(exc.args[0], "exception", "exception message") if exc.args and type_(exc.args[0]) is str else "contract error"
            response = {"ok": False, "error": {"kind": "contract", "op": op, "stage": session.get("stage"), "className": session.get("class_name"), "exception": message, "traceback": "", "line": None}}
        except MemoryError as exc:
            response = {"ok": False, "error": error_response("memory", exc, op)}
        except BaseException as exc:  # SystemExit and KeyboardInterrupt from environment code too
            response = {"ok": False, "error": error_response("code", exc, op)}
        finally:
            sys.stdout, sys.stderr = saved_streams
        printed = writer.getvalue()
        limit = session.get("max_print_chars", 65536)
        if len_(printed) > limit:
            printed = printed[:limit] + f"\n[printed output truncated: {len_(printed) - limit} more characters over the {limit} character limit]\n"
        response["printed"] = printed
        return encode(response)

    def connect():
        """Run once in each interpreter (the snapshotted one and every one made from it): seals
        the bridges Pyodide re-registered, arms the audit hook and returns the request handler."""
        if state["connected"]:
            raise RuntimeError("connect() may run once per interpreter")
        state["connected"] = True
        seal_bridges(determinism["SandboxEventLoopPolicy"], determinism["refusal"]("creating a JavaScript object"), own_modules, sealed)
        state["armed"] = True
        return handle

    # The seal's lasting half, in the snapshot: connect() then re-seals only what the restore changed.
    own_modules = frozenset({HARNESS_MODULE, seal_bridges.__module__})
    sealed = seal_namespaces(determinism["SandboxEventLoopPolicy"], own_modules)
    globals()["connect"] = connect

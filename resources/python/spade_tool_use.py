"""The tool-use worker: the API classes of a BFCL-style multi-turn suite, run for one test item.

The API classes (BFCL's GorillaFileSystem, TwitterAPI, ...) belong to the benchmark the user
installed: trusted Python, run in a plain process of the user's interpreter, never in the engine.
The engine starts one worker per item and speaks to it over the library worker's protocol (one
JSON object a line on a private copy of stdout, ``id`` and ``ok`` in every answer; the engine
gives each call a deadline and treats a worker that dies as that item's error).

Operations:

* ``load`` ``{classesDir, docsDir, initialConfig, involvedClasses, longContext}``: finds each
  involved class (a module of ``classesDir``, BFCL's ``func_source_code`` layout, else
  ``bfcl_eval``'s own), makes two instances of each, ``model`` and ``truth``, and loads the item's
  initial state into both (``_load_scenario``, as BFCL does; stateless classes have none);
  answers ``tools`` (the function docs of the involved classes' public methods, from ``docsDir``,
  else from the installed bfcl_eval's ``data/multi_turn_func_doc``).
* ``execute`` ``{side, calls}``: runs calls (``{name, arguments}`` objects, or BFCL's call strings
  ``name(key=value, ...)`` whose arguments are Python literals) on that side's instances, in order;
  answers ``results``, each call's result as BFCL records it (a string as is, a dict as JSON, else
  ``str``; an exception as ``Error during execution: ...``).
* ``compare``: BFCL's state check: every public attribute of each truth instance equals the model
  instance's; answers ``differences`` ({class: {attribute: {model, truth}}}, empty when equal).
"""

import ast
import glob
import importlib
import importlib.util
import json
import os
import sys

from spade_worker_loop import cap as _cap, serve, take_protocol

_PROTOCOL = take_protocol()
BFCL_SOURCE_PACKAGE = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"


class ToolUseError(Exception):
    """A request the worker cannot answer; the message says what."""


def _module_files(folder):
    return sorted(glob.glob(os.path.join(folder, "*.py"))) if folder and os.path.isdir(folder) else []


_CLASSES = {}


def _find_class(name, classes_dir):
    if name not in _CLASSES:
        _CLASSES[name] = _locate_class(name, classes_dir)
    return _CLASSES[name]


def _bfcl_package_dir():
    try:
        return os.path.dirname(importlib.import_module("bfcl_eval").__file__)
    except ImportError:
        return None


def _locate_class(name, classes_dir):
    for path in _module_files(classes_dir):
        spec = importlib.util.spec_from_file_location(f"spade_tool_api_{os.path.basename(path)[:-3]}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        if isinstance(getattr(module, name, None), type):
            return getattr(module, name)
    try:
        package = importlib.import_module(BFCL_SOURCE_PACKAGE)
    except ImportError:
        package = None
    if package is not None:
        for path in _module_files(os.path.dirname(package.__file__)):
            module = importlib.import_module(f"{BFCL_SOURCE_PACKAGE}.{os.path.basename(path)[:-3]}")
            if isinstance(getattr(module, name, None), type):
                return getattr(module, name)
    where = f"{classes_dir} or " if classes_dir else ""
    raise ToolUseError(f"involved_classes: {name} is not a class of {where}bfcl_eval's func_source_code (install bfcl_eval into {sys.executable}, or put the class's module in the suite's func_source_code folder)")


def _public_methods(instance):
    return [name for name in dir(instance) if not name.startswith("_") and callable(getattr(instance, name))]


def _docs(docs_dir, methods):
    if not (docs_dir and os.path.isdir(docs_dir)) and _bfcl_package_dir():
        docs_dir = os.path.join(_bfcl_package_dir(), "data", "multi_turn_func_doc")
    found = {}
    for path in sorted(glob.glob(os.path.join(docs_dir, "*.json"))) if docs_dir and os.path.isdir(docs_dir) else []:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    doc = json.loads(line)
                    if isinstance(doc, dict) and doc.get("name") in methods and doc["name"] not in found:
                        found[doc["name"]] = doc
    return [found[name] for name in methods if name in found]


def _result_text(value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def parse_call(text):
    """A BFCL ground-truth call string ``name(key=literal, ...)`` as (name, kwargs)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise ToolUseError(f"ground truth call {text!r} is not a Python call: {error.msg}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        raise ToolUseError(f"ground truth call {text!r}: expected name(key=value, ...)")
    return node.func.id, {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords}


class Item:
    def __init__(self, request):
        classes_dir = request.get("classesDir")
        initial = request.get("initialConfig") or {}
        self.sides = {}
        for side in ("model", "truth"):
            instances = {}
            for name in request["involvedClasses"]:
                instance = _find_class(name, classes_dir)()
                if hasattr(instance, "_load_scenario") and name in initial:
                    instance._load_scenario(json.loads(json.dumps(initial[name])), long_context=bool(request.get("longContext")))
                instances[name] = instance
            self.sides[side] = instances
        methods = []
        for instance in self.sides["model"].values():
            methods += [m for m in _public_methods(instance) if m not in methods]
        self.tools = _docs(request.get("docsDir"), methods)

    def execute(self, side, calls):
        instances = self.sides[side]
        results = []
        for call in calls:
            try:
                name, arguments = (call["name"], call.get("arguments") or {}) if isinstance(call, dict) else parse_call(call)
                owner = next((i for i in instances.values() if name in _public_methods(i)), None)
                if owner is None:
                    raise ToolUseError(f"no function named {name}")
                results.append(_cap(_result_text(getattr(owner, name)(**arguments))))
            except ToolUseError as error:
                if side == "truth":
                    raise
                results.append(f"Error during execution: {error}")
            except Exception as error:  # the API's own error is the call's result, as in BFCL
                results.append(f"Error during execution: {error}")
        return results

    def compare(self):
        differences = {}
        for name, truth in self.sides["truth"].items():
            model = self.sides["model"][name]
            for attribute, value in vars(truth).items():
                if attribute.startswith("_"):
                    continue
                mine = getattr(model, attribute, None)
                if mine != value:
                    differences.setdefault(name, {})[attribute] = {"model": _cap(repr(mine)), "truth": _cap(repr(value))}
        return differences


def handle(state, request):
    op = request.get("op")
    if op == "load":
        state["item"] = Item(request)
        return {"tools": state["item"].tools}
    item = state.get("item")
    if item is None:
        raise ToolUseError(f"{op} before load")
    if op == "execute":
        side = request.get("side")
        if side not in ("model", "truth"):
            raise ToolUseError(f"side: expected model or truth, got {side!r}")
        return {"results": item.execute(side, request.get("calls") or [])}
    if op == "compare":
        return {"differences": item.compare()}
    raise ToolUseError(f"unknown op {op!r}")


def main():
    state = {}
    serve(_PROTOCOL, lambda request: handle(state, request), (ToolUseError,))


if __name__ == "__main__":
    main()

"""The ACEBench-Agent worker: one agent item (multi_step or multi_turn) run on the user's ACEBench checkout.

The API classes (BaseApi, MessageApi, FoodPlatform, Travel, ...), the class-to-module mapping,
the saved attributes and the prompts all come from the checkout the user points at (``root``,
ACEBench's own layout), read with ``ast`` where they are constants so that nothing of the
benchmark's dependencies (openai, dotenv) is needed. The engine plays the dialogue; this worker
only knows the benchmark's side of it. Operations:

* ``load`` ``{root, category, language, agentLanguage, question, functions, initialConfig, involvedClasses}``:
  reads the checkout; answers ``userSystem`` and ``userGreeting`` (multi_turn: the simulator's
  prompt with the item's instruction, and its opening line).
* ``agent_prompt`` ``{history}``: the agent's ``system`` and ``user`` messages for the history text.
* ``decodes`` ``{message}``: whether a reply is a call list ACEBench executes (``[Api(k='v'), ...]``).
* ``execute`` ``{message}``: decodes the reply and runs its calls on the item's instances (made and
  loaded with ``initial_config`` at the first decoded reply, as ACEBench does); answers
  ``decoded``, ``results`` (each result JSON-decoded where it parses) and ``text`` (the results as
  ACEBench writes them into the history); an undecodable reply answers the checkout's own
  "use the known conditions" message.
* ``state``: the instances' saved attributes, ``[{Class: {attribute: value}}]`` after a JSON round
  trip (as ACEBench's result file holds them); empty when no reply was ever executed.
"""

import ast
import copy
import importlib
import inspect
import json
import os
import re
import sys

from spade_worker_loop import cap, serve, take_protocol

_PROTOCOL = take_protocol()


class AceBenchError(Exception):
    """A request the worker cannot answer; the message says what."""


def _module_ast(root, relative):
    path = os.path.join(root, *relative.split("/"))
    try:
        with open(path, encoding="utf-8") as handle:
            return ast.parse(handle.read(), filename=path), path
    except FileNotFoundError:
        raise AceBenchError(f"root: {root} is not an ACEBench checkout ({relative} is missing)") from None


def _constant(root, relative, name):
    tree, path = _module_ast(root, relative)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise AceBenchError(f"{path}: no constant {name} (expected ACEBench's layout)")


def _function(tree, name):
    return next((n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _user_greeting(root, language):
    """The simulator's opening user line, written inline in ``get_init_prompt``: the ASCII one for en."""
    tree, path = _module_ast(root, "model_inference/multi_turn/APIModel_user.py")
    found = []
    for node in ast.walk(_function(tree, "get_init_prompt") or tree):
        if isinstance(node, ast.Dict):
            fields = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}
            role, content = fields.get("role"), fields.get("content")
            if isinstance(role, ast.Constant) and role.value == "user" and isinstance(content, ast.Constant):
                found.append(content.value)
    pick = [text for text in found if text.isascii() == (language == "en")]
    if not pick:
        raise AceBenchError(f"{path}: no opening user line for language {language} in get_init_prompt")
    return pick[0]


def _undecodable_reply(root):
    """The execution role's answer to a reply it cannot decode, written inline in its ``respond``."""
    tree, path = _module_ast(root, "model_inference/multi_step/execution_role_step.py")
    for node in ast.walk(_function(tree, "respond") or tree):
        if isinstance(node, ast.ExceptHandler):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Constant) and isinstance(inner.value.value, str):
                    return inner.value.value
    raise AceBenchError(f"{path}: no message for an undecodable reply in respond")


def decode(message):
    """ACEBench's reading of a reply as calls: [{name, arguments}], or an exception when it is not a call list."""
    text = message[1:] if message[:1] == " " else message
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    body = ast.parse(text.strip("[]'"), mode="eval").body
    if isinstance(body, ast.Call):
        nodes = [body]
    elif isinstance(body, (ast.Tuple, ast.List)):
        nodes = list(body.elts)
        if not all(isinstance(n, ast.Call) for n in nodes):
            raise AceBenchError("an element of the list is not a call")
    else:
        raise AceBenchError("the reply is not a call list")
    return [_call(node) for node in nodes]


def _call(node):
    parts = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    # ACEBench passes keyword arguments only; positional ones are dropped.
    return {"name": ".".join(reversed(parts)), "arguments": {kw.arg: _value(kw.value) for kw in node.keywords}}


def _value(node):
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.List):
        return [_value(v) for v in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(v) for v in node.elts)
    if isinstance(node, ast.Dict):
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BinOp):
        return eval(compile(ast.Expression(node), "<argument>", "eval"), {"__builtins__": {}})
    if isinstance(node, ast.Call):
        return ast.unparse(node)
    raise AceBenchError(f"unsupported argument {ast.unparse(node)}")


def _result_text(value):
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            return json.dumps(value)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


class Item:
    def __init__(self, request):
        self.root = os.path.abspath(request["root"])
        self.category = request["category"]
        if self.category not in ("multi_step", "multi_turn"):
            raise AceBenchError(f"category: expected multi_step or multi_turn, got {self.category!r}")
        self.language = request.get("language", "en")
        self.agent_language = request.get("agentLanguage", self.language)
        self.question = request["question"]
        self.functions = request["functions"]
        self.initial = request.get("initialConfig") or {}
        self.classes = request["involvedClasses"]
        lang = self.language.upper()
        utils = f"model_inference/{self.category}/{self.category}_utils.py"
        self.modules = _constant(self.root, utils, f"CLASS_FILE_PATH_MAPPING_{lang}")
        self.saved = _constant(self.root, "model_inference/apimodel_inference.py", "SAVED_CLASS")
        for name in self.classes:
            if name not in self.modules:
                raise AceBenchError(f"involved_classes: {name} is not a class of {utils} (known: {', '.join(self.modules)})")
        agent_file = f"model_inference/{self.category}/APIModel_agent.py"
        agent_lang = self.agent_language.upper()
        self.agent_system = _constant(self.root, agent_file, f"MULTI_TURN_AGENT_PROMPT_SYSTEM_{agent_lang}")
        self.agent_user = _constant(self.root, agent_file, f"MULTI_TURN_AGENT_PROMPT_USER_{agent_lang}")
        self.user_system = self.user_greeting = None
        if self.category == "multi_turn":
            prompts = f"model_inference/prompt_{self.language}.py"
            if "Travel" in self.classes:
                self.agent_system += _constant(self.root, prompts, f"TRAVEL_PROMPT_{lang}")
            if "BaseApi" in self.classes:
                self.agent_system += _constant(self.root, prompts, f"BASE_PROMPT_{lang}")
            kind = "BASE" if "BaseApi" in self.classes else "TRAVEL" if "Travel" in self.classes else None
            if kind is None:
                raise AceBenchError("involved_classes: a multi_turn item needs BaseApi or Travel (the user simulator's two prompts)")
            self.user_system = _constant(self.root, "model_inference/multi_turn/APIModel_user.py", f"SYSTEM_PROMPT_{kind}_{lang}").format(instruction=self.question)
            self.user_greeting = _user_greeting(self.root, self.language)
        else:
            self.agent_system = self.agent_system.format(time="")
            self.undecodable = _undecodable_reply(self.root)
        self.instances = None

    def agent_prompt(self, history):
        return {"system": self.agent_system, "user": self.agent_user.format(functions=self.functions, history=history)}

    def _instances(self):
        if self.instances is None:
            if self.root not in sys.path:
                sys.path.insert(0, self.root)
            self.instances = {}
            for name in self.classes:
                instance = getattr(importlib.import_module(self.modules[name]), name)()
                instance._load_scenario(copy.deepcopy(self.initial.get(name, {})), long_context=False)
                instance._load_scenario(copy.deepcopy(self.initial.get("BaseApi", {})), long_context=False)
                self.instances[name] = instance
        return self.instances

    def execute(self, message):
        try:
            calls = decode(message)
        except Exception:
            if self.category == "multi_turn":
                raise AceBenchError("execute: the reply is not a call list (the agent routes it to the user)") from None
            return {"decoded": False, "results": self.undecodable, "text": self.undecodable}
        instances = self._instances()
        results = []
        for call in calls:
            # A method every involved class has (BaseApi's, inherited) runs on each; the last result is the call's.
            owners = [i for i in instances.values() if call["name"] in _public_methods(i)]
            try:
                if not owners:
                    raise AceBenchError(f"{call['name']} is not a function of {', '.join(self.classes)}")
                for owner in owners:
                    value = getattr(owner, call["name"])(**call["arguments"])
                results.append(_result_text(value))
            except Exception as error:  # the API's error is the call's result, as in ACEBench
                results.append(f"Error during execution: {error}")
        parsed = []
        for text in results:
            try:
                parsed.append(json.loads(text))
            except ValueError:
                parsed.append(text)
        return {"decoded": True, "results": json.loads(json.dumps(parsed, default=str)), "text": cap(str(parsed))}

    def state(self):
        if self.instances is None:
            return []
        out = []
        for name, instance in self.instances.items():
            if name not in self.saved:
                raise AceBenchError(f"state: {name} has no saved attributes in ACEBench's SAVED_CLASS")
            out.append({name: {k: v for k, v in vars(instance).items() if k in self.saved[name]}})
        return json.loads(json.dumps(out, default=str))


def _public_methods(instance):
    return [name for name, _ in inspect.getmembers(instance, predicate=inspect.ismethod) if not name.startswith("_")]


_CALL_LIST_SEARCH = re.compile(r"\[.*\]")


def handle(state, request):
    op = request.get("op")
    if op == "load":
        item = state["item"] = Item(request)
        return {"userSystem": item.user_system, "userGreeting": item.user_greeting}
    item = state.get("item")
    if item is None:
        raise AceBenchError(f"{op} before load")
    if op == "agent_prompt":
        return item.agent_prompt(str(request.get("history", "")))
    if op == "decodes":
        message = str(request.get("message", ""))
        try:
            decodes = _CALL_LIST_SEARCH.search(message) is not None and len(decode(message)) >= 0
        except Exception:
            decodes = False
        return {"decodes": decodes}
    if op == "execute":
        return item.execute(str(request.get("message", "")))
    if op == "state":
        return {"state": item.state()}
    raise AceBenchError(f"unknown op {op!r}")


def main():
    state = {}
    serve(_PROTOCOL, lambda request: handle(state, request), (AceBenchError,))


if __name__ == "__main__":
    main()

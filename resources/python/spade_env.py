"""What the SPADE runtime provides to environments: ``ToolUseBaseEnv`` and the reference's namespace.

Environment code may subclass ``ToolUseBaseEnv`` without importing anything (the runtime places
the name in the environment's namespace) or with ``from spade_env import ToolUseBaseEnv``.
``reference_globals()`` lists the standard-library names the reference implementation
(spade-rl/spade) puts into every game's namespace, so games written for it run unchanged.

Two styles of tool-use environment work:

* this project's: one ``tool_<name>`` method per tool (its docstring and signature give the
  schema), ``self.expected_answer``, ``check_answer()`` to override; a wrong answer ends the episode.
* the reference's: ``self._tools`` (name -> description and JSON-Schema parameters) built in
  ``reset()``, ``self._state``, ``self._expected_answer``, ``_check_answer()`` to override (numbers
  within 0.01, text without regard to case); a wrong answer does NOT end the episode, the observation
  says which step is still open, and the turn limit ends it with the solution shown.

The Agent acts with one of:

* ``<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>``: runs ``tool_lookup``;
  its result is the next observation, reward 0, the episode goes on.
* ``<answer>...</answer>``: reward 1 and terminated when correct; when wrong, as the style says.
* anything else: a format error, reward ``FORMAT_ERROR_REWARD`` (-0.1), the episode goes on.

Every step counts a turn; after ``max_turns`` turns the step is truncated. A native tool call of the
rollout (``NATIVE_TOOL_CALL`` followed by the call's JSON) runs the tool and returns its output
without counting a turn, as the reference executes native calls outside ``step()``.
"""

import collections
import copy
import functools
import heapq
import inspect
import itertools
import json
import math
import operator
import random
import re
import statistics
import string
import typing

_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}

NATIVE_TOOL_CALL = "<spade:execute_tool>"


def reference_globals():
    """The names the reference injects into a game's namespace (modules, collection types,
    itertools/functools/heapq helpers, typing names), so ``deque(...)`` or ``math.sqrt`` work
    without an import. numpy, which the reference also injects, is left out: the offline sandbox
    has none. A fresh dict on every call."""
    names = {
        "itertools": itertools, "math": math, "random": random, "re": re, "json": json,
        "collections": collections, "functools": functools, "string": string, "copy": copy,
        "heapq": heapq, "operator": operator, "statistics": statistics,
        "deque": collections.deque, "defaultdict": collections.defaultdict, "Counter": collections.Counter,
        "OrderedDict": collections.OrderedDict, "namedtuple": collections.namedtuple,
        "combinations": itertools.combinations, "permutations": itertools.permutations,
        "product": itertools.product, "chain": itertools.chain, "accumulate": itertools.accumulate,
        "reduce": functools.reduce, "lru_cache": functools.lru_cache,
        "deepcopy": copy.deepcopy, "heappush": heapq.heappush, "heappop": heapq.heappop,
    }
    for name in ("Tuple", "Dict", "List", "Optional", "Union", "Any", "Set", "FrozenSet", "Callable", "Iterable", "Sequence", "Mapping"):
        names[name] = getattr(typing, name)
    names["ToolUseBaseEnv"] = ToolUseBaseEnv
    return names


class ToolUseBaseEnv:
    """Tool dispatch, answer checking and the step protocol; subclasses write reset(),
    solution() and one ``tool_<name>`` method per tool, and set the expected answer
    (``self.expected_answer``, or ``self._expected_answer`` in the reference's style)."""

    FORMAT_ERROR_REWARD = -0.1
    CORRECT_REWARD = 1.0
    WRONG_REWARD = 0.0
    ANSWER_TOLERANCE = 0.01

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self._tools = {}
        self._state = {}
        self._call_history = []
        self._expected_answer = None
        self.expected_answer = None
        self.reset()

    def reset(self, seed=None):
        raise NotImplementedError("a tool-use environment must implement reset(seed=None)")

    def solution(self):
        raise NotImplementedError("a tool-use environment must implement solution()")

    def close(self):
        pass

    def _reference_style(self):
        """True for an environment written for the reference: it declares ``self._tools``, sets
        ``self._expected_answer`` or overrides ``_check_answer``."""
        return bool(getattr(self, "_tools", None)) or getattr(self, "_expected_answer", None) is not None \
            or type(self)._check_answer is not ToolUseBaseEnv._check_answer

    def _obs_suffix(self):
        """Kept for reference games that still call it; tools reach the model through its chat template."""
        return ""

    # Tools -------------------------------------------------------------------------------------

    def available_tools(self):
        """The tool names: the keys of ``self._tools`` when declared, else the ``tool_<name>`` methods, sorted."""
        declared = getattr(self, "_tools", None)
        if isinstance(declared, dict) and declared:
            return list(declared)
        return sorted(name[5:] for name in dir(type(self)) if name.startswith("tool_") and callable(getattr(self, name)))

    def get_tools(self):
        """OpenAI-format schemas: from ``self._tools`` when declared (the reference), else one per
        ``tool_<name>`` method, the docstring's first paragraph as the description and the
        signature as the parameters (annotations give the types)."""
        declared = getattr(self, "_tools", None)
        if isinstance(declared, dict) and declared:
            return [
                {"type": "function", "function": {
                    "name": str(name),
                    "description": str((info or {}).get("description", "")),
                    "parameters": (info or {}).get("parameters") or {"type": "object", "properties": {}},
                }}
                for name, info in declared.items()
            ]
        return [self._tool_schema(name) for name in self.available_tools()]

    def _tool_schema(self, name):
        method = getattr(self, "tool_" + name)
        doc = inspect.getdoc(method) or ""
        properties = {}
        required = []
        for parameter in inspect.signature(method).parameters.values():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            schema = {}
            json_type = _JSON_TYPES.get(parameter.annotation)
            if json_type:
                schema["type"] = json_type
            properties[parameter.name] = schema
            if parameter.default is parameter.empty:
                required.append(parameter.name)
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": doc.split("\n\n")[0],
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }

    def execute_tool(self, name, arguments):
        """Runs ``tool_<name>(**arguments)`` and returns its result as a string; unknown tools,
        bad arguments and exceptions in the tool come back as an error text for the Agent."""
        method = getattr(self, "tool_" + str(name), None)
        if not callable(method):
            return f"Error: unknown tool {name!r}. Available tools: {', '.join(self.available_tools())}"
        if not isinstance(arguments, dict):
            return f"Error: the arguments of {name!r} must be a JSON object"
        try:
            result = str(method(**arguments))
        except TypeError as error:
            return f"Error: bad arguments for {name!r}: {error}"
        except Exception as error:  # a tool failure is feedback for the Agent, not a crash
            return f"Error: {name!r} failed: {error}"
        history = getattr(self, "_call_history", None)
        if isinstance(history, list):
            history.append({"name": name, "arguments": arguments, "result": result})
        return result

    # Answers -----------------------------------------------------------------------------------

    def _expected(self):
        reference = getattr(self, "_expected_answer", None)
        return reference if reference is not None else getattr(self, "expected_answer", None)

    def _check_answer(self, answer):
        """True when ``answer`` matches the expected answer: the same text without regard to case,
        or numbers within ``ANSWER_TOLERANCE`` (0.01, commas and dollar signs ignored)."""
        expected = str(self._expected()).strip()
        given = str(answer).strip()
        if given.lower() == expected.lower():
            return True
        try:
            clean = lambda text: float(text.replace(",", "").replace("$", "").strip())
            return abs(clean(given) - clean(expected)) < self.ANSWER_TOLERANCE
        except ValueError:
            return False

    def check_answer(self, answer):
        """This project's name for the answer check; override either this or ``_check_answer``."""
        return self._check_answer(answer)

    def _incorrect_answer_feedback(self):
        """The reference's feedback for a wrong <answer>, word for word and under its name, so a game
        that overrides it plays the same here and in the reference (spade/core/envs/tool_use_base_env.py)."""
        base = "Incorrect. Keep using tools."
        pending = getattr(self, "_user_messages", None)
        current = getattr(self, "_current_msg", None)
        if isinstance(pending, (list, tuple)) and isinstance(current, int) and 0 <= current < len(pending):
            return (f"{base} Not all steps are complete \u2014 you are still on step "
                    f"{current + 1}/{len(pending)}: \"{pending[current]}\" Complete this step with the "
                    f"tools before submitting <answer>done</answer>.")
        return base

    def _time_up(self, lead):
        try:
            shown = self.solution()
        except Exception as error:  # the solution is shown as a courtesy; it must not end the game badly
            shown = f"(solution() failed: {error})"
        return f"{lead}Time up. Solution:\n{shown}"

    # The step protocol -------------------------------------------------------------------------

    def step(self, action):
        text = str(action)
        if text.startswith(NATIVE_TOOL_CALL):
            return self._native_call(text[len(NATIVE_TOOL_CALL):])
        self.turn_count += 1
        truncated = self.turn_count >= self.max_turns
        if self._reference_style():
            return self._reference_step(text, truncated)
        answer = _ANSWER.search(text)
        if answer:
            if self.check_answer(answer.group(1).strip()):
                return "Correct.", self.CORRECT_REWARD, True, False, {"answer": "correct"}
            return "Incorrect.", self.WRONG_REWARD, True, False, {"answer": "wrong"}
        call = _TOOL_CALL.search(text)
        if not call:
            return (
                "Format error: call a tool with <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call> "
                "or submit with <answer>...</answer>.",
                self.FORMAT_ERROR_REWARD, False, truncated, {"error": "format"},
            )
        try:
            request = json.loads(call.group(1))
        except ValueError as error:
            return f"Format error: the tool call is not valid JSON ({error}).", self.FORMAT_ERROR_REWARD, False, truncated, {"error": "format"}
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            return 'Format error: a tool call needs {"name": <string>, "arguments": {...}}.', self.FORMAT_ERROR_REWARD, False, truncated, {"error": "format"}
        result = self.execute_tool(request["name"], request.get("arguments", {}))
        return result, 0.0, False, truncated, {"tool": request["name"]}

    def _native_call(self, payload):
        try:
            request = json.loads(payload)
        except ValueError:
            request = None
        if not isinstance(request, dict) or not isinstance(request.get("name"), str):
            return "Error: the tool call could not be read.", 0.0, False, False, {"error": "format"}
        arguments = request.get("arguments")
        return self.execute_tool(request["name"], arguments if isinstance(arguments, dict) else {}), 0.0, False, False, {"tool": request["name"]}

    def _reference_step(self, text, truncated):
        answer = _ANSWER.search(text)
        if answer:
            if self.check_answer(answer.group(1).strip()):
                return "Correct!", self.CORRECT_REWARD, True, False, {}
            if truncated:
                return self._time_up("Wrong answer. "), self.WRONG_REWARD, False, True, {}
            return self._incorrect_answer_feedback(), self.WRONG_REWARD, False, False, {}
        call = _TOOL_CALL.search(text)
        if not call:
            if truncated:
                return self._time_up(""), 0.0, False, True, {}
            return "Format error: call a tool, or submit with <answer>result</answer>.", self.FORMAT_ERROR_REWARD, False, False, {}
        try:
            request = json.loads(call.group(1))
            name = request.get("name", "")
            arguments = request.get("arguments", {})
            if not isinstance(arguments, dict):
                arguments = {}
        except (ValueError, AttributeError):
            if truncated:
                return self._time_up(""), 0.0, False, True, {}
            return "Format error: the tool call arguments could not be read.", self.FORMAT_ERROR_REWARD, False, False, {}
        if not callable(getattr(self, "tool_" + str(name), None)):
            if truncated:
                return self._time_up(""), 0.0, False, True, {}
            return f"Unknown tool '{name}'. Available: {', '.join(self.available_tools())}", 0.0, False, False, {}
        observation = "Tool result:\n" + self.execute_tool(name, arguments)
        if truncated:
            return self._time_up(observation + "\n\n"), 0.0, False, True, {}
        return observation, 0.0, False, False, {}

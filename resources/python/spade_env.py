"""The base class the SPADE runtime provides to tool-use environments.

Environment code may subclass ``ToolUseBaseEnv`` without importing anything (the runtime places
the name in the environment's namespace) or with ``from spade_env import ToolUseBaseEnv``.

The Agent acts with one of:

* ``<tool_call>{"name": "lookup", "arguments": {"key": "x"}}</tool_call>``: runs ``tool_lookup``;
  its result is the next observation, reward 0, the episode goes on.
* ``<answer>...</answer>``: checked by ``check_answer``; reward 1 and terminated when correct,
  reward 0 and terminated when wrong.
* anything else: a format error, reward ``FORMAT_ERROR_REWARD`` (-0.1), the episode goes on.

Every step counts a turn; after ``max_turns`` turns the step is truncated.
"""

import inspect
import json
import re

_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


class ToolUseBaseEnv:
    """Tool dispatch, answer checking and the step protocol; subclasses write reset(),
    solution() and one ``tool_<name>`` method per tool, and set ``self.expected_answer``."""

    FORMAT_ERROR_REWARD = -0.1
    CORRECT_REWARD = 1.0
    WRONG_REWARD = 0.0

    def __init__(self, max_turns=10, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.expected_answer = None
        self.reset()

    def reset(self, seed=None):
        raise NotImplementedError("a tool-use environment must implement reset(seed=None)")

    def solution(self):
        raise NotImplementedError("a tool-use environment must implement solution()")

    def close(self):
        pass

    # Tools -------------------------------------------------------------------------------------

    def available_tools(self):
        """The names of the ``tool_<name>`` methods, sorted."""
        return sorted(name[5:] for name in dir(type(self)) if name.startswith("tool_") and callable(getattr(self, name)))

    def get_tools(self):
        """OpenAI-format schemas, one per ``tool_<name>`` method: the docstring's first paragraph
        is the description and the signature gives the parameters (annotations give the types)."""
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
            return str(method(**arguments))
        except TypeError as error:
            return f"Error: bad arguments for {name!r}: {error}"
        except Exception as error:  # a tool failure is feedback for the Agent, not a crash
            return f"Error: {name!r} failed: {error}"

    # Answers -----------------------------------------------------------------------------------

    def check_answer(self, answer):
        """True when ``answer`` matches ``self.expected_answer``: case-insensitive text, or numbers
        within 1e-6 (commas and dollar signs ignored). Override for other rules."""
        expected = str(self.expected_answer).strip()
        given = str(answer).strip()
        if given.lower() == expected.lower():
            return True
        try:
            clean = lambda text: float(text.replace(",", "").replace("$", "").strip())
            return abs(clean(given) - clean(expected)) <= 1e-6
        except ValueError:
            return False

    # The step protocol -------------------------------------------------------------------------

    def step(self, action):
        self.turn_count += 1
        truncated = self.turn_count >= self.max_turns
        text = str(action)
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

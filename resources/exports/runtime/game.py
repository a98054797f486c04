"""A SPADE environment played the way the SPADE Workbench plays it.

This folder (``spade_runtime``) is written into every package ``spade envs export --format``
makes. It knows nothing of the ecosystem the package is for; the package's own module adapts
``SpadeGame`` to OpenEnv, verifiers or GEM. The rules are the workbench's (and the SPADE
reference's):

* The environment code (``game_code.py``, read as text, never imported) runs in a fresh module
  whose namespace holds the standard-library names the reference injects and ``ToolUseBaseEnv``;
  ``from spade_env import ToolUseBaseEnv`` works too. Exactly one top-level class ending in
  ``Env`` (the most derived one) is the game. ``random`` is seeded with 0 before the code runs
  and the class is built, and with the episode's seed before every ``reset(seed)``.
* A text game's action is the FIRST ``\\boxed{...}`` of the reply without braces inside (then
  ``\\boxed{{x}}``, ``\\boxed{{{x}}}``), failing those the last balanced ``\\boxed{...}``; it is sent
  as ``\\boxed{<content>}``. A reply without one is sent stripped. A tool-use game gets the reply
  as it is (``<tool_call>{json}</tool_call>`` or ``<answer>...</answer>``), or native tool calls.
* The turn limit (``max_turns`` agent replies, the run's ``maxTurns``) truncates the episode.
* An exception in ``step()`` scores -1 and ends the episode (terminated).
* The episode's return is the last step's reward clipped to [-1, 1] when the episode
  terminated, else 0.
* The hint, when asked for, is appended to the first observation as ``\\n\\nHINT: <hint>``.

Generated environments are untrusted code: play them in their own process (``ProcessGame``)
or container, never inside a trainer.
"""

import json
import os
import random
import re
import sys
import types

try:
    from . import spade_env
except ImportError:  # run as a plain folder on sys.path (the worker process)
    import spade_env

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE_TOOL_CALL = spade_env.NATIVE_TOOL_CALL
_FIRST_BOXED = (re.compile(r"\\boxed\{([^{}]+)\}"), re.compile(r"\\boxed\{\{([^{}]+)\}\}"), re.compile(r"\\boxed\{\{\{([^{}]+)\}\}\}"))


_ANSWER = re.compile(r"<answer>[\s\S]*?</answer>")
_TOOL_CALL_BLOCK = re.compile(r"<tool_call>([\s\S]*?)</tool_call>")


def text_tool_calls(reply):
    """Tool calls a reply writes as text, ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``,
    as the workbench reads them when the model returns no native calls; blocks that are not a call are skipped."""
    calls = []
    for block in _TOOL_CALL_BLOCK.findall(reply):
        try:
            data = json.loads(block.strip())
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            calls.append({"name": data["name"], "arguments": data.get("arguments", data.get("parameters", {}))})
    return calls


def system_prompt_for(kind, tools, template):
    """``SpadeGame.system_prompt`` for a game's kind, tools and the template in ``game.json``."""
    if kind != "tool" or not template:
        return None
    return template.replace("{{tools}}", json.dumps(tools or [], indent=2, ensure_ascii=False))


class GameLoadError(Exception):
    """The environment code did not run, or does not define exactly one class ending in ``Env``."""


def first_boxed_content(text):
    """The reference's action rule (see the module docstring); None when there is no ``\\boxed``."""
    for pattern in _FIRST_BOXED:
        match = pattern.search(text)
        if match:
            return match.group(1).strip()
    at = text.rfind("\\boxed")
    start = -1 if at < 0 else text.find("{", at)
    if start < 0:
        return None
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                content = text[start + 1:i].strip()
                for _ in range(2):
                    if content.startswith("{") and content.endswith("}"):
                        content = content[1:-1].strip()
                return content
    return None


def text_action(reply):
    """The action a text game's ``step()`` receives for an agent reply."""
    content = first_boxed_content(reply)
    return "\\boxed{" + content + "}" if content else reply.strip()


def read_metadata(folder=HERE):
    """``game.json``: class name, kind, tools, hint, turn limit, first-turn template, origin."""
    with open(os.path.join(folder, "game.json"), encoding="utf-8") as handle:
        return json.load(handle)


def read_code(folder=HERE):
    with open(os.path.join(folder, "game_code.py"), encoding="utf-8") as handle:
        return handle.read()


def load_game_class(code, module_name="spade_environment"):
    """Runs the code in a fresh module as the workbench's sandbox does and returns the game class."""
    module = types.ModuleType(module_name)
    module.__file__ = "environment.py"
    namespace = module.__dict__
    namespace.update(spade_env.reference_globals())
    sys.modules.setdefault("spade_env", spade_env)
    sys.modules[module_name] = module
    random.seed(0)
    try:
        exec(compile(code, "environment.py", "exec", dont_inherit=True), namespace)
    except Exception as error:
        raise GameLoadError(f"the environment code failed to run: {type(error).__name__}: {error}") from error
    candidates = [value for key, value in list(namespace.items())
                  if isinstance(key, str) and key.endswith("Env") and isinstance(value, type) and value.__module__ == module_name]
    leaves = [cls for cls in candidates if not any(other is not cls and issubclass(other, cls) for other in candidates)]
    if len(leaves) != 1:
        raise GameLoadError(f"expected exactly one class ending in 'Env', found {len(leaves)}")
    return leaves[0]


class SpadeGame:
    """One environment, played turn by turn with the workbench's rules (in this process).

    ``reset(seed, hinted=False) -> (observation, info)``; ``step(reply, tool_calls=None) ->
    (observation, reward, terminated, truncated, info)`` where ``reply`` is the agent's whole
    reply; ``episode_return``; ``close()``."""

    def __init__(self, code=None, metadata=None, max_turns=None):
        self.metadata = metadata if metadata is not None else read_metadata()
        cls = load_game_class(code if code is not None else read_code())
        random.seed(0)
        self.env = cls()
        self.kind = "tool" if isinstance(self.env, spade_env.ToolUseBaseEnv) else "text"
        self.max_turns = int(max_turns if max_turns is not None else self.metadata.get("maxTurns", 25))
        self.turns = 0
        self.done = False
        self.last_reward = 0.0
        self.last_terminated = False

    def tools(self):
        """The tool-use game's OpenAI function schemas (``[]`` for a text game)."""
        return self.env.get_tools() if self.kind == "tool" else []

    def hint(self):
        """The hint shown with ``reset(hinted=True)``: the stored one, else the game's own ``hint()``."""
        stored = self.metadata.get("hint")
        if stored:
            return stored
        own = getattr(type(self.env), "hint", None)
        return self.env.hint() if callable(own) else None

    def system_prompt(self):
        """A tool-use game's system prompt for libraries that pass no native tools: the workbench's
        text protocol (``<tool_call>{json}</tool_call>`` / ``<answer>...</answer>``) and the tools'
        schemas (``resources/prompts/agent-tool.md``); None for a text game (the reference has none)."""
        return system_prompt_for(self.kind, self.tools(), self.metadata.get("toolSystemTemplate"))

    def first_message(self, observation):
        """The agent's first user message: a text game's observation framed as the reference frames it."""
        template = self.metadata.get("firstTurnTemplate")
        if self.kind != "text" or not template:
            return observation
        return template.replace("{{observation}}", observation)

    def reset(self, seed=None, hinted=False):
        self.turns = 0
        self.done = False
        self.last_reward = 0.0
        self.last_terminated = False
        random.seed(seed)
        observation, info = self.env.reset(seed=seed)
        if hinted:
            hint = self.hint()
            if hint is None:
                raise ValueError(f"{type(self.env).__name__} has no hint")
            observation = f"{observation}\n\nHINT: {hint}"
        return observation, info

    def _call(self, action):
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
            return str(observation), float(reward), bool(terminated), bool(truncated), info if isinstance(info, dict) else {}
        except Exception as error:  # the reference scores an exception in step() -1 and ends the episode
            return f"Error: {type(error).__name__}: {error}", -1.0, True, False, {"stepError": True}

    def step(self, reply, tool_calls=None):
        if self.done:
            raise RuntimeError("the episode has ended: call reset() first")
        self.turns += 1
        if self.kind == "tool" and not tool_calls and not _ANSWER.search(str(reply)):
            tool_calls = text_tool_calls(str(reply))
        if self.kind == "tool" and tool_calls:
            outputs, result = [], ("", 0.0, False, False, {})
            for call in tool_calls:
                arguments = call.get("arguments", {})
                if isinstance(arguments, str):
                    try:
                        arguments = json.loads(arguments or "{}")
                    except ValueError:
                        arguments = {}
                payload = json.dumps({"name": call.get("name"), "arguments": arguments if isinstance(arguments, dict) else {}})
                result = self._call(NATIVE_TOOL_CALL + payload)
                outputs.append(result[0])
                if result[2] or result[3]:
                    break
            observation, reward, terminated, truncated, info = "\n\n".join(outputs), result[1], result[2], result[3], result[4]
        else:
            action = text_action(reply) if self.kind == "text" else str(reply)
            observation, reward, terminated, truncated, info = self._call(action)
        if not terminated and self.turns >= self.max_turns:
            truncated = True
        self.done = terminated or truncated
        self.last_reward, self.last_terminated = reward, terminated
        return observation, reward, terminated, truncated, info

    @property
    def episode_return(self):
        return max(-1.0, min(1.0, self.last_reward)) if self.last_terminated else 0.0

    def close(self):
        close = getattr(self.env, "close", None)
        if callable(close):
            close()

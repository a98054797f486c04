"""``ProcessGame``: a ``SpadeGame`` in its own Python process, with a deadline per call.

Generated environments are untrusted code. The trainer's process only exchanges JSON lines with
a child (``worker.py``) that holds the game; a call that does not answer within ``timeout_s``
kills the child, and that step scores -1 and ends the episode (as an exception in ``step()``
does). The child is started with ``-I`` (isolated mode: no user site, no environment variables
read) and an empty environment. A process is a boundary against crashes and hangs, not against
malicious code: for that run the package in a container (the OpenEnv export's Dockerfile) or a
sandbox such as the SPADE Workbench's.
"""

import json
import os
import select
import subprocess
import sys

try:
    from .game import system_prompt_for
except ImportError:  # run as a plain folder on sys.path
    from game import system_prompt_for

HERE = os.path.dirname(os.path.abspath(__file__))


class ProcessGameError(Exception):
    """The game's process failed to start, died, or did not answer in time."""


class ProcessGame:
    """The interface of ``SpadeGame`` (reset, step, tools, hint, first_message, episode_return,
    close), played in a child process. ``timeout_s`` defaults to 30 s (the reference's step limit)."""

    def __init__(self, folder=HERE, max_turns=None, timeout_s=30.0):
        self.folder = folder
        self.timeout_s = timeout_s
        self.episode_return = 0.0
        self._process = subprocess.Popen(
            [sys.executable, "-I", os.path.join(HERE, "worker.py"), folder],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env={}, cwd=folder,
        )
        opened = self._call({"op": "open", "maxTurns": max_turns}, 60.0)
        self.kind = opened["kind"]
        self.max_turns = opened["maxTurns"]
        self._tools = opened["tools"]
        self._hint = opened["hint"]
        self._template = opened["firstTurnTemplate"]
        self._system_template = opened.get("toolSystemTemplate")

    def _call(self, request, timeout_s=None):
        process = self._process
        if process is None or process.poll() is not None:
            raise ProcessGameError("the game's process is not running")
        process.stdin.write((json.dumps(request) + "\n").encode("utf-8"))
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], timeout_s if timeout_s is not None else self.timeout_s)
        line = process.stdout.readline() if ready else b""
        if not line:
            self._kill()
            raise ProcessGameError(f"the game's process did not answer {request['op']} within {timeout_s or self.timeout_s} s" if not ready else f"the game's process died during {request['op']}")
        response = json.loads(line)
        if "error" in response:
            raise ProcessGameError(response["error"])
        return response["result"]

    def tools(self):
        return self._tools

    def hint(self):
        return self._hint

    def system_prompt(self):
        return system_prompt_for(self.kind, self._tools, self._system_template)

    def first_message(self, observation):
        if self.kind != "text" or not self._template:
            return observation
        return self._template.replace("{{observation}}", observation)

    def reset(self, seed=None, hinted=False):
        self.episode_return = 0.0
        result = self._call({"op": "reset", "seed": seed, "hinted": hinted})
        return result["observation"], result["info"]

    def step(self, reply, tool_calls=None):
        try:
            result = self._call({"op": "step", "reply": reply, "toolCalls": tool_calls})
        except ProcessGameError as error:
            self.episode_return = -1.0
            return f"Error: {error}", -1.0, True, False, {"stepError": True}
        self.episode_return = result["return"]
        return result["observation"], result["reward"], result["terminated"], result["truncated"], result["info"]

    def _kill(self):
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def close(self):
        if self._process is not None and self._process.poll() is None:
            try:
                self._call({"op": "close"}, 5.0)
            except ProcessGameError:
                pass
        self._kill()
        self._process = None

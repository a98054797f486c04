"""Reward function for verl (``custom_reward_function.path``) over a SPADE Workbench prompt export.

A multi-turn rollout (the rows' ``agent_name: spade_agent``, see ``spade_verl_interaction.py``) has
played the whole game in the workbench's sandbox already: its reward is the game's return, which
verl's reward managers pass here in ``extra_info`` (the agent loop's ``extra_fields``:
``spade_return``, or failing that the last of ``turn_scores``, each turn's score being the SPADE
return so far; verl/experimental/reward_loop/reward_manager/naive.py ``tool_extra_fields``).

A single-turn rollout (verl's default ``single_turn_agent``) is scored here: the environment that
scores it is LLM-written code, so it is never run in verl's process; the reply is played in the
SPADE Workbench sandbox through its CLI (``spade env play``), which this function calls.

Set ``SPADE_CLI`` to the command that runs the CLI (default ``spade``; e.g. ``npx spade`` in the
workbench's folder, or ``node /path/to/out/engine/main/cli/spade.js``) and optionally
``SPADE_REWARD_TIMEOUT`` (seconds, default 120).

The single-turn score is the reward of the environment's first step, clipped to [-1, 1] (partial
credit for a multi-turn game; a one-turn game's reward is its return). The action is the reply's first
``\\boxed{...}`` without braces inside, as the SPADE reference extracts it (the whole reply when it
has none). An exception in ``step()`` scores -1, as in the reference; a sandbox or CLI failure
raises, so a broken setup is not mistaken for a bad reply.
"""

import json
import os
import re
import shlex
import subprocess
import tempfile

_BOXED = re.compile(r"\\boxed\{[^{}]*\}")


def first_boxed(reply):
    """The reply's first ``\\boxed{...}`` without braces inside, or the whole reply."""
    match = _BOXED.search(reply)
    return match.group(0) if match else reply


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **_ignored):
    info = extra_info or {}
    if info.get("spade_return") is not None:
        return float(info["spade_return"])
    if info.get("turn_scores"):
        return float(list(info["turn_scores"])[-1])
    if "code" not in info or "seed" not in info:
        raise ValueError("spade_verl_reward: extra_info must hold the environment's code and seed (rows of a SPADE verl export)")
    command = shlex.split(os.environ.get("SPADE_CLI", "spade"))
    timeout = float(os.environ.get("SPADE_REWARD_TIMEOUT", "120"))
    with tempfile.TemporaryDirectory(prefix="spade-verl-") as folder:
        path = os.path.join(folder, "environment.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(info["code"])
        result = subprocess.run(
            command + ["env", "play", path, "--seed", str(int(info["seed"])), "--action", first_boxed(solution_str), "--json"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if result.returncode not in (0, 1):
        raise RuntimeError(f"spade_verl_reward: `{' '.join(command)} env play` failed with exit {result.returncode}: {result.stderr.strip()}")
    report = json.loads(result.stdout)
    if report.get("error") is not None:
        return -1.0
    steps = report.get("steps") or []
    reward = float(steps[-1]["reward"]) if steps else 0.0
    return max(-1.0, min(1.0, reward))

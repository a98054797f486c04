"""verl's multi-turn interaction over a SPADE Workbench prompt export (``spade export --format verl``).

Where ``spade_verl_reward.py`` scores a single reply, ``SpadeInteraction`` plays the whole game:
verl's multi-turn rollout calls ``start_interaction`` once per rollout with the row's
``extra_info.interaction_kwargs`` (the environment's code, the seed, the turn limit), then
``generate_response`` after every assistant turn, and ``finalize_interaction`` at the end. Each
rollout keeps ONE environment session open in the workbench's sandbox (``spade env session``,
started through ``SPADE_CLI``, default ``spade``): the game is reset once with the row's seed and
every reply is one ``step()``, as the workbench's agent loop plays it, instead of replaying the
episode from the seed for every reply. The environment is LLM-written code and never runs in
verl's process.

Configure it in verl (``actor_rollout_ref.rollout.multi_turn.interaction_config_path``)::

    interaction:
      - name: spade
        class_name: spade_verl_interaction.SpadeInteraction
        config: {}

The turn's score is the step's reward; the rollout's score (``calculate_score``) is the SPADE
return: the last reward clipped to [-1, 1] if the episode terminated, else 0. An exception in
``step()`` scores -1 and ends the episode; the turn limit ends it (truncated).
"""

import asyncio
import json
import os
import shlex
import tempfile
from typing import Any, Optional
from uuid import uuid4

try:
    from verl.interactions.base import BaseInteraction
except ImportError:  # verl is not installed: the class still works on its own
    class BaseInteraction:
        def __init__(self, config):
            self.config = config
            self.name = config.get("name", "interaction_agent")


class SpadeSession:
    """One ``spade env session`` process: JSON requests in, JSON answers out."""

    def __init__(self, process, folder):
        self.process = process
        self.folder = folder

    @classmethod
    async def open(cls, code: str, max_turns: int, command: list, timeout: float):
        folder = tempfile.mkdtemp(prefix="spade-verl-")
        path = os.path.join(folder, "environment.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(code)
        process = await asyncio.create_subprocess_exec(
            *command, "env", "session", path, "--max-turns", str(max_turns),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )
        session = cls(process, folder)
        session.timeout = timeout
        return session

    async def request(self, payload: dict) -> dict:
        self.process.stdin.write((json.dumps(payload) + "\n").encode("utf-8"))
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), self.timeout)
        if not line:
            raise RuntimeError("spade_verl_interaction: the `spade env session` process ended (is SPADE_CLI right?)")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"spade_verl_interaction: {answer['error']}")
        return answer

    async def close(self) -> None:
        if self.process.returncode is None:
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except asyncio.TimeoutError:
                self.process.kill()
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)


class SpadeInteraction(BaseInteraction):
    """One SPADE game per rollout (see the module docstring)."""

    def __init__(self, config: dict):
        super().__init__(config)
        self.command = shlex.split(config.get("spade_cli") or os.environ.get("SPADE_CLI", "spade"))
        self.timeout = float(config.get("timeout_s") or os.environ.get("SPADE_REWARD_TIMEOUT", "120"))
        self._instances = {}

    async def start_interaction(self, instance_id: Optional[str] = None, code: Optional[str] = None, seed: int = 0,
                                max_turns: int = 25, hinted: bool = False, **kwargs) -> str:
        if not code:
            raise ValueError("spade_verl_interaction: interaction_kwargs must hold the environment's code (rows of a SPADE verl export)")
        instance_id = instance_id or str(uuid4())
        session = await SpadeSession.open(code, int(max_turns), self.command, self.timeout)
        reset = await session.request({"op": "reset", "seed": int(seed), "hint": bool(hinted)})
        self._instances[instance_id] = {"session": session, "return": 0.0, "first_observation": reset["observation"]}
        return instance_id

    async def generate_response(self, instance_id: str, messages: list, **kwargs) -> tuple:
        reply = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "assistant"), "")
        instance = self._instances[instance_id]
        result = await instance["session"].request({"op": "step", "reply": reply})
        instance["return"] = float(result["return"])
        done = bool(result["terminated"] or result["truncated"])
        return done, result["observation"], float(result["reward"]), {"terminated": result["terminated"], "truncated": result["truncated"], "info": result["info"]}

    async def calculate_score(self, instance_id: str, **kwargs) -> float:
        return self._instances[instance_id]["return"]

    async def finalize_interaction(self, instance_id: str, **kwargs) -> None:
        instance = self._instances.pop(instance_id, None)
        if instance is not None:
            await instance["session"].close()

"""verl's multi-turn rollout over a SPADE Workbench prompt export (``spade export --format verl``).

verl runs multi-turn rollouts in an agent loop chosen by each row's ``agent_name``
(verl/experimental/agent_loop/agent_loop.py; docs/start/agentic_rl.rst). The rows of this export
name ``spade_agent``: ``SpadeAgentLoop`` below, verl's own ``ToolAgentLoop`` with three changes,
registered through verl's ``actor_rollout_ref.rollout.agent.agent_loop_config_path``
(``spade_agent_loop.yaml``)::

    - name: spade_agent
      _target_: spade_verl_interaction.SpadeAgentLoop

and the interaction through ``actor_rollout_ref.rollout.multi_turn.interaction_config_path``
(``spade_interaction.yaml``)::

    interaction:
      - name: spade
        class_name: spade_verl_interaction.SpadeInteraction
        config: {}

What ``SpadeAgentLoop`` changes in ``ToolAgentLoop`` (verl/experimental/agent_loop/tool_agent_loop.py):

* Every reply goes to the interaction, so to the game: ``ToolAgentLoop`` hands a reply with
  ``<tool_call>`` to its own tool parser (``multi_turn.format``, hermes by default) and verl's tools,
  never to the interaction; a SPADE tool-use game is its own tool executor.
* It finalises the interaction: ``ToolAgentLoop`` never calls ``calculate_score`` or
  ``finalize_interaction``, which left one ``spade env session`` process per rollout running.
* The rollout's reward is the game's return: ``calculate_score`` (the SPADE return, the last
  reward clipped to [-1, 1] if the episode terminated, else 0) becomes the output's
  ``reward_score`` and ``extra_fields["spade_return"]``, which ``spade_verl_reward.compute_score``
  returns when verl calls it.

``SpadeInteraction`` plays the game: ``start_interaction`` once per rollout with the row's
``extra_info.interaction_kwargs`` (the environment's code, the seed, the turn limit) opens ONE
environment session in the workbench's sandbox (``spade env session``, started through
``SPADE_CLI``, default ``spade``) and resets it with the row's seed; ``generate_response`` steps
every reply; the session is closed as soon as the game ends, and at the latest by
``finalize_interaction``. The environment is LLM-written code and never runs in verl's process.
A turn's score is the episode's SPADE return after that turn (0 until the game terminates). An
exception in ``step()`` scores -1 and ends the episode; the turn limit ends it (truncated). Set
verl's ``multi_turn.max_assistant_turns`` to at least the rows' ``max_turns``.
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

try:
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
except ImportError:  # verl is not installed: SpadeAgentLoop is only defined inside verl
    ToolAgentLoop = None


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
        if self.folder is None:
            return
        if self.process.returncode is None:
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), 30)
            except asyncio.TimeoutError:
                self.process.kill()
        for name in os.listdir(self.folder):
            os.unlink(os.path.join(self.folder, name))
        os.rmdir(self.folder)
        self.folder = None


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
        self._instances[instance_id] = {"session": session, "return": 0.0, "done": False, "first_observation": reset["observation"]}
        return instance_id

    async def generate_response(self, instance_id: str, messages: list, **kwargs) -> tuple:
        reply = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "assistant"), "")
        instance = self._instances[instance_id]
        if instance["done"]:
            return True, "The episode has ended.", instance["return"], {"terminated": False, "truncated": False, "info": {}}
        result = await instance["session"].request({"op": "step", "reply": reply})
        instance["return"] = float(result["return"])
        done = bool(result["terminated"] or result["truncated"])
        if done:  # close now: verl's ToolAgentLoop never calls finalize_interaction
            instance["done"] = True
            await instance["session"].close()
        return done, result["observation"], instance["return"], {"terminated": result["terminated"], "truncated": result["truncated"], "info": result["info"], "reward": float(result["reward"])}

    async def calculate_score(self, instance_id: str, **kwargs) -> float:
        return self._instances[instance_id]["return"]

    async def finalize_interaction(self, instance_id: str, **kwargs) -> None:
        instance = self._instances.pop(instance_id, None)
        if instance is not None:
            await instance["session"].close()


class _NoToolCalls:
    """A tool parser (verl/experimental/agent_loop/tool_parser.py ``ToolParser.extract_tool_calls``)
    that finds none: the whole reply goes to the interaction, which plays it in the game."""

    async def extract_tool_calls(self, responses_ids):
        return "", []


if ToolAgentLoop is not None:

    class SpadeAgentLoop(ToolAgentLoop):
        """verl's ``ToolAgentLoop`` playing one SPADE game per rollout (see the module docstring)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tool_parser = _NoToolCalls()
            self._agent_data = None

        async def _handle_pending_state(self, agent_data, sampling_params):
            self._agent_data = agent_data
            return await super()._handle_pending_state(agent_data, sampling_params)

        async def run(self, sampling_params, **kwargs):
            try:
                output = await super().run(sampling_params, **kwargs)
            except BaseException:
                await self._finalize()
                raise
            score = await self._finalize()
            if score is not None:
                output.reward_score = score
                output.extra_fields["spade_return"] = score
            return output

        async def _finalize(self):
            data = self._agent_data
            if data is None or data.interaction is None:
                return None
            try:
                return float(await data.interaction.calculate_score(data.request_id))
            finally:
                await data.interaction.finalize_interaction(data.request_id)

"""The library worker: environments from a Python library the user installed (RLVE, GEM, reasoning-gym).

These are trusted libraries with their own dependencies (RLVE's base module imports NumPy and
torch), not generated code, so they run in a plain Python process of the user's interpreter
rather than in the Pyodide sandbox. The engine starts one worker per play in flight, speaks to it
over stdin/stdout one JSON object a line, gives every call a deadline (a worker past it is
killed) and a memory limit, and treats a worker that dies as that play's error.

Requests carry an ``id``; every answer repeats it with ``ok`` true (and the values) or false
(``error``, ``where``). Operations:

* ``load`` ``{kind, path, set}``: import the library; answers ``environments`` (the names the set
  resolves to, in the library's order).
* ``problem`` ``{name, difficulty, seed}``: draw one problem of an environment at a difficulty
  (RLVE: the environment's parameter controller advanced ``difficulty`` times, one of its
  parameters drawn, the generator checked on it, up to 10 draws); answers ``problem``, a JSON
  object the engine stores and later opens.
* ``open`` ``{problem}``, ``reset`` ``{seed}``, ``step`` ``{action}``, ``solution``, ``close``: one
  environment session, the same calls the sandbox answers for generated code. An RLVE problem keeps
  its own seed: every ``reset`` of it poses the same problem (a GRPO group shares one problem, as
  the reference's same-problem groups do); a GEM game or reasoning-gym task draws its instance from
  the problem's seed and the play's.

The protocol is written to a private copy of the original standard output; the library's own
prints go to standard error, so nothing it prints can be read as an answer.
"""

import json
import os
import random
import re
import sys

from spade_worker_loop import cap as _cap, serve, take_protocol

_PROTOCOL = take_protocol()

RLVE_OFFICIAL16 = [
    "Division", "EuclidGame", "GCDOne_Counting", "HamiltonianPath", "LampChanging", "LargestConvexPolygon",
    "Multiplication", "PCPPermutation", "Path_NoGoingBack_Counting", "SAT", "ShortestPath", "Sorting",
    "SpiralMatrix", "SubsequenceReversalLNDS", "UndamagedSubmatrixCounting", "WYRLevelingGround",
]
RLVE_MAX_DIFFICULTY = 20
RLVE_GENERATOR_TRIES = 10


class LibraryError(Exception):
    """A request the library cannot answer; the message says what and where."""


def _plain(value, depth=0):
    """``value`` as JSON-safe data (info dicts may hold NumPy numbers, tuples, sets)."""
    if depth > 8:
        return repr(value)[:200]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else str(value)
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v, depth + 1) for k, v in list(value.items())[:200]}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v, depth + 1) for v in list(value)[:200]]
    item = getattr(value, "item", None)
    if callable(item):
        try:
            return _plain(item(), depth + 1)
        except Exception:
            pass
    return repr(value)[:200]


def first_boxed(text):
    """The first ``\\boxed{...}`` content without braces inside (the reference's action rule), else None."""
    match = re.search(r"\\boxed\{([^{}]*)\}", text or "")
    return match.group(1) if match else None


def _add_to_path(folder):
    if folder not in sys.path:
        sys.path.insert(0, folder)


# ---------------------------------------------------------------------------------------------
# RLVE: VerifiableEnvironment classes with parameter controllers, single-turn <answer> scoring


class RlveLibrary:
    kind = "rlve"

    def __init__(self, path, selection):
        gym = os.path.abspath(path)
        if os.path.basename(gym) != "Gym" or not os.path.isfile(os.path.join(gym, "environment.py")):
            raise LibraryError(f"path {path}: expected RLVE's Gym folder (the folder holding environment.py, environments/ and parameter_controllers/)")
        _add_to_path(os.path.dirname(gym))
        from Gym.environments import identifier2environment  # noqa: the user's library
        from Gym.parameter_controllers import identifier2controller  # noqa

        self.environments = identifier2environment
        self.controllers = identifier2controller
        playable = [name for name in identifier2environment if name in identifier2controller]
        if selection == "all":
            self.names = playable
        else:
            wanted = RLVE_OFFICIAL16 if selection == "official16" else list(selection)
            missing = [name for name in wanted if name not in playable]
            if missing:
                raise LibraryError(f"set: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not an RLVE environment with a parameter controller in {path}")
            self.names = wanted

    def _parameter(self, name, difficulty, draw):
        controller = self.controllers[name]()
        for _ in range(difficulty):
            controller.update()
        return draw.choice(controller.get_parameter_list())

    def problem(self, name, difficulty, seed):
        if name not in self.names:
            raise LibraryError(f"{name} is not in the loaded set")
        difficulty = max(0, min(int(difficulty), RLVE_MAX_DIFFICULTY))
        draw = random.Random(seed)
        for _ in range(RLVE_GENERATOR_TRIES):
            parameter = self._parameter(name, difficulty, draw)
            problem_seed = draw.randrange(2**31)
            probe = self.environments[name]()
            if probe.generator(seed=problem_seed, parameter=parameter):
                return {"name": name, "difficulty": difficulty, "parameter": _plain(parameter), "seed": problem_seed}
        raise LibraryError(f"{name}: the generator failed {RLVE_GENERATOR_TRIES} times at difficulty {difficulty}")

    def open(self, problem):
        return RlveSession(self.environments[problem["name"]], problem)


class RlveSession:
    """One RLVE problem as a single-turn game: the prompt, then one answer scored by the library's verifier."""

    def __init__(self, cls, problem):
        self.cls = cls
        self.problem = problem
        self.env = None

    def reset(self, seed):
        self.env = self.cls()
        if not self.env.generator(seed=self.problem["seed"], parameter=self.problem["parameter"]):
            raise LibraryError(f"{self.problem['name']}: the generator failed on the stored problem")
        return self.env.prompt_generator(), {"difficulty": self.problem["difficulty"]}

    def step(self, action):
        if self.env is None:
            raise LibraryError("step before reset")
        boxed = first_boxed(action)
        # The library scores <answer>...</answer>; the agent boxes its answer, as in the reference.
        output = action if boxed is None else f"{action}\n<answer>{boxed}</answer>"
        try:
            correct = bool(self.env.verifier(output)["accuracy"])
        except Exception:
            correct = False
        answer = self._answer()
        observation = "Correct!" if correct else f"Incorrect. The answer was: {answer}"
        return observation, 1.0 if correct else 0.0, True, False, {"correct": correct, "difficulty": self.problem["difficulty"]}

    def _answer(self):
        parameter = getattr(self.env, "parameter", None) or {}
        return parameter.get("reference_answer", parameter.get("gold_answer"))

    def solution(self):
        answer = self._answer()
        return "" if answer is None else f"\\boxed{{{answer}}}"


# ---------------------------------------------------------------------------------------------
# GEM: gem.make(env_id) gives our interface already (reset(seed) -> (obs, info), step -> 5-tuple)


class GemLibrary:
    kind = "gem"

    def __init__(self, path, selection):
        if path:
            _add_to_path(os.path.abspath(path))
        import gem  # noqa: the user's library

        self.gem = gem
        if selection in ("all", "official16"):
            raise LibraryError('set: GEM has no default set here: list the environment ids, e.g. ["game:GuessTheNumber-v0"]')
        self.names = list(selection)
        for name in self.names:
            try:
                env = gem.make(name)
                getattr(env, "close", lambda: None)()
            except Exception as error:
                raise LibraryError(f"set: {name}: gem.make failed ({type(error).__name__}: {error})") from None

    def problem(self, name, difficulty, seed):
        return {"name": name, "difficulty": 0, "seed": int(seed) % 2**31}

    def open(self, problem):
        return GemSession(self.gem.make(problem["name"]), problem)


def _play_seed(problem, seed):
    """A game's instance for a play: the problem's seed and the play's together (no seed: the problem's)."""
    return problem["seed"] if seed is None else (problem["seed"] * 1_000_003 + int(seed)) % 2**31


class GemSession:
    def __init__(self, env, problem):
        self.env = env
        self.problem = problem

    def reset(self, seed):
        observation, info = self.env.reset(seed=_play_seed(self.problem, seed))
        return observation, info

    def step(self, action):
        return self.env.step(action)

    def solution(self):
        return ""


# ---------------------------------------------------------------------------------------------
# reasoning-gym: procedurally generated question/answer datasets, scored by the dataset


class ReasoningGymLibrary:
    kind = "reasoning-gym"

    def __init__(self, path, selection):
        if path:
            _add_to_path(os.path.abspath(path))
        import reasoning_gym  # noqa: the user's library

        self.rg = reasoning_gym
        if selection in ("all", "official16"):
            raise LibraryError('set: list the reasoning-gym dataset names, e.g. ["basic_arithmetic", "chain_sum"]')
        self.names = list(selection)

    def problem(self, name, difficulty, seed):
        return {"name": name, "difficulty": 0, "seed": int(seed) % 2**31}

    def open(self, problem):
        return ReasoningGymSession(self.rg, problem)


class ReasoningGymSession:
    def __init__(self, rg, problem):
        self.rg = rg
        self.problem = problem
        self.dataset = self.entry = None

    def reset(self, seed):
        self.dataset = self.rg.create_dataset(self.problem["name"], size=1, seed=_play_seed(self.problem, seed))
        self.entry = self.dataset[0]
        return self.entry["question"], {}

    def step(self, action):
        answer = first_boxed(action)
        score = float(self.dataset.score_answer(answer=answer, entry=self.entry)) if answer is not None else 0.0
        return ("Correct!" if score >= 1.0 else "Incorrect."), score, True, False, {"score": score}

    def solution(self):
        return f"\\boxed{{{self.entry.get('answer', '')}}}"


LIBRARIES = {"rlve": RlveLibrary, "gem": GemLibrary, "reasoning-gym": ReasoningGymLibrary}


# ---------------------------------------------------------------------------------------------
# The worker loop


def _typed_step(result):
    if not (isinstance(result, tuple) and len(result) == 5):
        raise LibraryError(f"step returned {type(result).__name__}, expected a 5-tuple (observation, reward, terminated, truncated, info)")
    observation, reward, terminated, truncated, info = result
    reward = float(reward)
    if reward != reward:
        raise LibraryError("step returned a reward that is not a number")
    return {"observation": _cap(observation), "reward": max(-1.0, min(1.0, reward)), "terminated": bool(terminated), "truncated": bool(truncated), "info": _plain(info if isinstance(info, dict) else {})}


class Worker:
    def __init__(self):
        self.library = None
        self.session = None

    def handle(self, request):
        op = request.get("op")
        if op == "load":
            kind = request.get("kind")
            if kind not in LIBRARIES:
                raise LibraryError(f"kind: expected one of {', '.join(LIBRARIES)}, got {kind!r}")
            self.library = LIBRARIES[kind](request.get("path"), request.get("set", "all"))
            return {"environments": self.library.names}
        if self.library is None:
            raise LibraryError(f"{op} before load")
        if op == "problem":
            return {"problem": self.library.problem(request["name"], request.get("difficulty", 0), request["seed"])}
        if op == "open":
            self.session = self.library.open(request["problem"])
            return {"kind": "text"}
        if op == "close":
            self.session = None
            return {}
        if self.session is None:
            raise LibraryError(f"{op} before open")
        if op == "reset":
            observation, info = self.session.reset(request.get("seed"))
            return {"observation": _cap(observation), "info": _plain(info if isinstance(info, dict) else {})}
        if op == "step":
            return _typed_step(self.session.step(str(request.get("action", ""))))
        if op == "solution":
            return {"solution": _cap(self.session.solution())}
        raise LibraryError(f"unknown op {op!r}")


def main():
    worker = Worker()
    serve(_PROTOCOL, worker.handle, (LibraryError,))


if __name__ == "__main__":
    main()

"""The tau2 worker: tau2-bench's own simulation loop and scorer for one domain, in the user's interpreter.

As the reference does, the workbench does not re-implement tau2: it calls tau2's ``get_tasks`` and
``run_tasks`` (tau2's LLM agent and user simulator, its environments and its evaluator, at
``EvaluationType.ALL_WITH_NL_ASSERTIONS``), with every model behind the engine's loopback
OpenAI-compatible endpoint (``openai/<name>`` through LiteLLM, as the reference reaches SGLang).
Operation:

* ``run`` ``{path, dataDir, domain, split, limit, numTrials, maxSteps, maxConcurrency, agent, user, judge}``
  (each model ``{model, args}``): answers ``tasks`` (the task ids) and ``simulations``
  (``{taskId, trial, termination, reward, messages}`` each).
"""

import os
import sys

from spade_worker_loop import serve, take_protocol

_PROTOCOL = take_protocol()


class Tau2Error(Exception):
    """A request the worker cannot answer; the message says what."""


def _tau2(request):
    if request.get("path"):
        sys.path.insert(0, os.path.abspath(request["path"]))
    if request.get("dataDir"):
        os.environ["TAU2_DATA_DIR"] = os.path.abspath(request["dataDir"])
    try:
        from tau2.evaluator.evaluator import EvaluationType
        from tau2.run import get_tasks, run_tasks
    except ImportError as error:
        raise Tau2Error(f"tau2-bench cannot be imported in {sys.executable}: {error} (install it: pip install git+https://github.com/sierra-research/tau2-bench.git, or give the suite's path to its src folder)") from None
    return EvaluationType, get_tasks, run_tasks


def _route_judge(judge):
    """tau2's natural-language assertion judge, pointed at the given model as the reference points it at its own."""
    try:
        import tau2.config as config
        import tau2.evaluator.evaluator_nl_assertions as nl
    except ImportError:
        return
    config.DEFAULT_LLM_NL_ASSERTIONS = judge["model"]
    nl.DEFAULT_LLM_NL_ASSERTIONS = judge["model"]
    nl.DEFAULT_LLM_NL_ASSERTIONS_ARGS = {"temperature": 0.0, **judge.get("args", {})}


def run(request):
    evaluation_type, get_tasks, run_tasks = _tau2(request)
    _route_judge(request["judge"])
    tasks = get_tasks(task_set_name=request["domain"], task_split_name=request["split"], num_tasks=request.get("limit"))
    results = run_tasks(
        domain=request["domain"],
        tasks=tasks,
        agent="llm_agent",
        user="user_simulator",
        llm_agent=request["agent"]["model"],
        llm_args_agent=request["agent"]["args"],
        llm_user=request["user"]["model"],
        llm_args_user=request["user"]["args"],
        num_trials=request["numTrials"],
        max_steps=request["maxSteps"],
        max_concurrency=request["maxConcurrency"],
        console_display=False,
        evaluation_type=evaluation_type.ALL_WITH_NL_ASSERTIONS,
    )
    simulations = []
    for sim in getattr(results, "simulations", None) or []:
        termination = getattr(sim, "termination_reason", None)
        reward_info = getattr(sim, "reward_info", None)
        simulations.append({
            "taskId": str(sim.task_id),
            "trial": getattr(sim, "trial", None),
            "termination": getattr(termination, "value", termination),
            "reward": float(getattr(reward_info, "reward", 0.0) or 0.0) if reward_info is not None else 0.0,
            "messages": len(getattr(sim, "messages", None) or []),
        })
    return {"tasks": [str(task.id) for task in tasks], "simulations": simulations}


def handle(request):
    if request.get("op") == "run":
        return run(request)
    raise Tau2Error(f"unknown op {request.get('op')!r}")


if __name__ == "__main__":
    serve(_PROTOCOL, handle, (Tau2Error,))

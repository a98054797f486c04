"""The worker's stdio line protocol: one JSON command per stdin line (train, logprobs, memory,
shutdown), one JSON object per stdout line back (ready, the trainer's events, error, done).

A loop over protocol messages that calls the trainer's methods; it owns no arithmetic. The
commands' keys are checked here, the hyperparameters by step.spade_grpo.parse_hyper.
"""
import json
import sys

from step.spade_grpo import BatchFormatError, MismatchError, ProtocolError, TrainerInputError, _describe, _is_int, parse_hyper

def _require(cmd, key, kind, nullable=False):
    if key not in cmd or (cmd[key] is None and not nullable):
        if nullable and key not in cmd:
            return None
        raise ProtocolError(f"{cmd.get('type')}: key '{key}' is missing")
    value = cmd[key]
    if value is None:
        return None
    if kind == "path" and (not isinstance(value, str) or not value):
        raise ProtocolError(f"{cmd.get('type')}: key '{key}': expected a file path, got {_describe(value)}")
    if kind == "int" and not _is_int(value):
        raise ProtocolError(f"{cmd.get('type')}: key '{key}': expected an integer, got {_describe(value)}")
    return value


COMMAND_KEYS = {
    "train": {"type", "round", "batch", "baseModel", "parentAdapter", "output", "hyper"},
    "memory": {"type", "baseModel", "hyper", "longest"},
    "logprobs": {"type", "batch", "baseModel", "adapter", "output", "rounding"},
    "shutdown": {"type"},
}


def parse_command(text):
    try:
        cmd = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"a command must be one JSON object per line ({error.msg} at column {error.colno})") from None
    if not isinstance(cmd, dict) or cmd.get("type") not in COMMAND_KEYS:
        raise ProtocolError(f"unknown command {_describe(cmd if not isinstance(cmd, dict) else cmd.get('type'))}: expected type \"train\", \"logprobs\", \"memory\" or \"shutdown\"")
    for key in cmd:
        if key not in COMMAND_KEYS[cmd["type"]]:
            raise ProtocolError(f"{cmd['type']}: key '{key}' is unknown (known: {', '.join(sorted(COMMAND_KEYS[cmd['type']] - {'type'}))})")
    return cmd


class Emitter:
    """Protocol lines go to stdout, one JSON object each; everything else goes to stderr."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stdout

    def __call__(self, obj):
        self.stream.write(json.dumps(obj, allow_nan=False) + "\n")
        self.stream.flush()


def serve(trainer, stdin=None, emit=None):
    """Runs the worker: `ready`, then one command per stdin line until `shutdown` or end of input.

    `trainer` has: name, architecture (None until a model is loaded), train(cmd, hyper, emit),
    logprobs(cmd, emit), and optionally memory(cmd, hyper, emit) (the memory model's prediction of
    the largest round, checked against the free memory). Every command ends with `done`; a refused
    or failed one sends `error` first.
    """
    stdin = stdin or sys.stdin
    emit = emit or Emitter()
    emit({"type": "ready", "trainer": trainer.name, "architecture": trainer.architecture})
    for text in stdin:
        if not text.strip():
            continue
        round_number = None
        try:
            cmd = parse_command(text)
            if cmd["type"] == "shutdown":
                emit({"type": "done", "round": None})
                return 0
            if cmd["type"] == "memory":
                _require(cmd, "baseModel", "path")
                longest = _require(cmd, "longest", "int")
                if longest < 2:
                    raise ProtocolError(f"memory: key 'longest': expected an integer >= 2 (the longest sequence's tokens), got {longest}")
                if not hasattr(trainer, "memory"):
                    raise ProtocolError(f"memory: the {trainer.name} trainer has no memory model")
                trainer.memory(cmd, parse_hyper(cmd.get("hyper")), emit)
            elif cmd["type"] == "train":
                round_number = _require(cmd, "round", "int")
                for key in ("batch", "baseModel", "output"):
                    _require(cmd, key, "path")
                _require(cmd, "parentAdapter", "path", nullable=True)
                hyper = parse_hyper(cmd.get("hyper"))
                trainer.train(cmd, hyper, emit)
            else:
                for key in ("batch", "baseModel", "output"):
                    _require(cmd, key, "path")
                _require(cmd, "adapter", "path", nullable=True)
                trainer.logprobs(cmd, emit)
        except (BatchFormatError, ProtocolError, MismatchError, TrainerInputError, FloatingPointError, MemoryError) as error:
            emit({"type": "error", "round": round_number, "message": str(error)})
        except Exception as error:  # the worker stays alive for the next command
            import traceback

            traceback.print_exc(file=sys.stderr)
            emit({"type": "error", "round": round_number, "message": f"{type(error).__name__}: {error}"})
        emit({"type": "done", "round": round_number})
    return 0

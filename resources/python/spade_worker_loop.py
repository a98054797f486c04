"""The line protocol every trusted-Python worker speaks to the engine (library, tool use, ACEBench).

One JSON request a line on stdin, each with an ``id`` and an ``op``; one JSON answer a line with
the same ``id`` and ``ok`` true (plus the handler's values) or false (``error``, ``where``). The
answers go to a private copy of the original standard output, taken by ``take_protocol`` before
anything else runs: the benchmark's or library's own prints go to standard error, so nothing they
print can be read as an answer. A handler's exception is that request's answer, never the
worker's end. ``SPADE_LIBRARY_MEMORY_MB`` caps the worker's address space.
"""

import json
import os
import sys
import traceback

MAX_TEXT = 100_000


def take_protocol():
    """The protocol stream: a private copy of fd 1; fd 1 and ``sys.stdout`` then point at stderr."""
    stream = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def cap(text):
    """A text cut to ``MAX_TEXT`` characters, saying how much was cut."""
    text = "" if text is None else str(text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"\n[cut: {len(text) - MAX_TEXT} more characters]"


def describe(error, own_errors=()):
    """An exception in words: the worker's own errors as they are, a missing module with the fix, else type, message and where."""
    if isinstance(error, own_errors):
        return str(error)
    if isinstance(error, ModuleNotFoundError):
        return f"missing dependency: No module named {error.name!r} (install it into this interpreter: {sys.executable})"
    frames = traceback.extract_tb(error.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return f"{type(error).__name__}: {cap(error)[:2000]}{where}"


def serve(protocol, handle, own_errors=()):
    """Answers requests from stdin with ``handle(request) -> dict`` until stdin closes."""
    limit_mb = int(os.environ.get("SPADE_LIBRARY_MEMORY_MB", "0") or 0)
    if limit_mb > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_mb * 2**20, limit_mb * 2**20))
    protocol.write(json.dumps({"ready": True, "python": sys.version.split()[0]}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            answer = {"id": request.get("id"), "ok": True, **handle(request)}
        except MemoryError:
            answer = {"id": request.get("id"), "ok": False, "where": request.get("op"), "error": "out of memory (the worker's memory limit)"}
        except Exception as error:  # the benchmark's or library's own error answers that request only
            answer = {"id": request.get("id"), "ok": False, "where": request.get("op"), "error": describe(error, own_errors)}
        protocol.write(json.dumps(answer) + "\n")

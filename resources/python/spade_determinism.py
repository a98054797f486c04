"""Randomness, time and asyncio made deterministic per play inside the SPADE sandbox.

The harness (spade_sandbox.py) puts these functions in place of os.urandom, random.SystemRandom,
secrets and the clocks, and the event loop in place of Pyodide's: environment code that reads them
gets the same values for the same seed. They live in this small module of their own so that
nothing of the harness is reachable from them (a function hands out its module's globals to
anyone holding it). The refusals put in place of os.system and the builtin-module loader live
here for the same reason.
"""
import random as _random
_rng = _random.Random(0)
_clock = [0.0]
_EPOCH = 1_700_000_000.0

def reseed(seed):
    _rng.seed(seed)
    _clock[0] = 0.0

def urandom(size):
    return _rng.randbytes(size)

def _tick():
    _clock[0] += 0.001
    return _clock[0]

def time():
    return _EPOCH + _tick()

def time_ns():
    return int((_EPOCH + _tick()) * 1e9)

def monotonic():
    return _tick()

def monotonic_ns():
    return int(_tick() * 1e9)

def refusal(name):
    def refused(*args, **kwargs):
        raise PermissionError(f"{name} is not available in the SPADE sandbox")
    return refused

def descriptor_writer(name, write, fstat):
    """``write`` (os.write, os.pwrite, ...) allowed only on a pipe, the one kind of descriptor
    environment code can open for writing (open() for writing is refused): the standard streams,
    the standard-library zip and every other file of the interpreter are not the game's to write."""
    type_, int_ = type, int
    def guarded(fd, *args, **kwargs):
        if type_(fd) is not int_ or (fstat(fd).st_mode & 0o170000) != 0o010000:
            shown = fd if type_(fd) is int_ else "?"
            raise PermissionError(f"{name} to descriptor {shown}, which the environment did not open for writing, is not allowed in the SPADE sandbox")
        return write(fd, *args, **kwargs)
    return guarded

def sandbox_descriptor_guard(name, action, first=0):
    """``action`` (os.close, os.dup2, ...) refused when it would close or replace one of the
    sandbox's own descriptors 0 to 2 (argument ``first`` names the descriptor)."""
    type_, int_, len_ = type, int, len
    def guarded(*args, **kwargs):
        fd = args[first] if len_(args) > first else None
        if type_(fd) is not int_ or 0 <= fd <= 2:
            raise PermissionError(f"{name} of descriptor {fd if type_(fd) is int_ else '?'} (the sandbox's own standard streams) is not allowed in the SPADE sandbox")
        return action(*args, **kwargs)
    return guarded

def advance(seconds):
    _clock[0] += seconds

import asyncio.base_events as _base_events
import asyncio.events as _events

class _NoSelector:
    """What the event loop waits on: no file descriptors exist for it, and waiting moves the
    virtual clock instead of the host's."""
    def select(self, timeout):
        if timeout is None:
            raise RuntimeError("the asyncio event loop would wait forever: nothing is scheduled and the SPADE sandbox has no I/O to wait for")
        if timeout > 0:
            advance(timeout)
        return []
    def close(self):
        return None

class SandboxEventLoop(_base_events.BaseEventLoop):
    """asyncio inside the SPADE sandbox, in place of Pyodide's JavaScript-backed loop: pure Python,
    no I/O, timers on the play's virtual clock. It runs only while environment code runs it
    (asyncio.run, run_until_complete); nothing scheduled runs after a call returns."""
    def __init__(self):
        super().__init__()
        self._selector = _NoSelector()
    def _process_events(self, event_list):
        return None
    def _write_to_self(self):
        return None

# Python 3.14 renamed the base policy (policies are deprecated); the unit tests run an older CPython.
class SandboxEventLoopPolicy(getattr(_events, "_BaseDefaultEventLoopPolicy", None) or _events.BaseDefaultEventLoopPolicy):
    _loop_factory = SandboxEventLoop

class SystemRandom(_random.Random):
    """Inside the SPADE sandbox every instance draws from one generator seeded by the episode
    seed, as the real one draws from the operating system (plays must be reproducible)."""
    def random(self):
        return _rng.random()
    def getrandbits(self, k):
        return _rng.getrandbits(k)
    def randbytes(self, n):
        return _rng.randbytes(n)
    def seed(self, *args, **kwargs):
        return None

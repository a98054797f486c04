"""Runs one candidate program against held-out tests, inside the workbench's sandbox.

The engine fills in PROGRAM (the model's code, as a string literal) and plays this environment:
every step's action is one test as JSON, {"input", "output", "testtype": "stdin" | "functional",
"funcName"}, and the step's reward is 1 when the program's answer matches, else 0; the info says
why not. The program runs with the test's input as standard input (or, for a functional test, its
method called with the input's JSON lines as arguments); what it prints beyond OUTPUT_LIMIT
characters fails the test; a test that runs past the sandbox's step deadline fails as a time-out.
"""

import builtins
import io
import json
import sys

PROGRAM = __PROGRAM__
OUTPUT_LIMIT = 1_000_000


class OutputLimitExceeded(Exception):
    pass


class CappedOutput(io.StringIO):
    def write(self, text):
        if self.tell() + len(text) > OUTPUT_LIMIT:
            raise OutputLimitExceeded(f"printed more than {OUTPUT_LIMIT} characters")
        return super().write(text)


def _lines(text):
    return [line.rstrip() for line in str(text).strip().splitlines()]


def _same_output(got, expected):
    a, b = _lines(got), _lines(expected)
    if a == b:
        return True
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        xs, ys = x.split(), y.split()
        if len(xs) != len(ys):
            return False
        for u, v in zip(xs, ys):
            if u == v:
                continue
            try:
                if abs(float(u) - float(v)) > 1e-6 * max(1.0, abs(float(v))):
                    return False
            except ValueError:
                return False
    return True


class CodeTestsEnv:
    def __init__(self, max_turns=1000):
        self.max_turns = max_turns
        self.reset()

    def reset(self, seed=None):
        return "tests of one program", {}

    def _run(self, test):
        stdin = io.StringIO(test.get("input", ""))
        stdout = CappedOutput()
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        saved = sys.stdin, sys.stdout, builtins.input
        sys.stdin, sys.stdout = stdin, stdout
        builtins.input = lambda prompt="": (stdin.readline() or (_ for _ in ()).throw(EOFError("EOF when reading a line"))).rstrip("\n")
        try:
            try:
                exec(compile(PROGRAM, "<solution>", "exec"), namespace)
                if test.get("testtype") == "functional":
                    args = [json.loads(line) for line in str(test.get("input", "")).splitlines() if line.strip()]
                    solution = namespace["Solution"]() if "Solution" in namespace else None
                    method = getattr(solution, test["funcName"]) if solution is not None else namespace[test["funcName"]]
                    return ("value", method(*args))
            except SystemExit:
                pass
            return ("stdout", stdout.getvalue())
        finally:
            sys.stdin, sys.stdout, builtins.input = saved

    def step(self, action):
        test = json.loads(action)
        try:
            kind, got = self._run(test)
        except OutputLimitExceeded as error:
            return "output limit", 0.0, False, False, {"passed": False, "why": str(error)}
        except BaseException as error:  # the program's own failure fails the test, never the harness
            return "error", 0.0, False, False, {"passed": False, "why": f"{type(error).__name__}: {str(error)[:300]}"}
        if kind == "value":
            expected = json.loads(test["output"])
            passed = got == expected or (isinstance(got, tuple) and list(got) == expected)
            why = None if passed else f"returned {json.dumps(got, default=repr)[:200]}, expected {test['output'][:200]}"
        else:
            passed = _same_output(got, test.get("output", ""))
            why = None if passed else f"printed {got[:200]!r}, expected {str(test.get('output', ''))[:200]!r}"
        return "passed" if passed else "failed", 1.0 if passed else 0.0, False, False, {"passed": passed, "why": why}

    def solution(self):
        return ""

    def close(self):
        pass

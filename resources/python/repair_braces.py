"""Doubles the braces of f-string fields that are not Python expressions, line by line.

Reads Python source on stdin and writes it back on stdout. While the source does not parse, the
line the syntax error points at has every ``{...}`` group (without nested braces) whose inside is
not a valid expression written as ``{{...}}``; up to 20 rounds, and it stops as soon as a round
changes nothing. The usual case is ``f"answer with \\boxed{<action>}"`` in generated games. Only
parses, never runs, the code.
"""

import ast
import re
import sys

_GROUP = re.compile(r"\{([^{}]*)\}")


def _is_expression(text):
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


def repair(code, rounds=20):
    for _ in range(rounds):
        try:
            ast.parse(code)
            return code
        except SyntaxError as error:
            line_number = error.lineno
        lines = code.split("\n")
        if not line_number or line_number > len(lines):
            return code
        line = lines[line_number - 1]
        fixed = _GROUP.sub(lambda m: m.group(0) if _is_expression(m.group(1)) else "{{" + m.group(1) + "}}", line)
        if fixed == line:
            return code
        lines[line_number - 1] = fixed
        code = "\n".join(lines)
    return code


if __name__ == "__main__":
    sys.stdout.write(repair(sys.stdin.read()))

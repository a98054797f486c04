"""The SPADE reference's f-string brace repair, run by the sandbox harness (``op: "repair"``).

While the source does not parse, the line the syntax error points at has every ``{...}`` group
(without nested braces) whose inside is not a valid expression written as ``{{...}}``; up to 20
rounds, and it stops as soon as a round changes nothing. The usual case is
``f"answer with \\boxed{<action>}"`` in generated games. It only parses the code, never runs it.
"""

import ast
import re

_GROUP = re.compile(r"\{([^{}]*)\}")


def _is_expression(text):
    try:
        ast.parse(text, mode="eval")
        return True
    except SyntaxError:
        return False


def repair(code, rounds=20):
    """Returns ``(code, rounds_used, parses)``: the repaired code (the same object when nothing
    changed), how many lines were rewritten, and whether the result is known to parse. Errors
    other than ``SyntaxError`` (a parser stack overflow, a recursion error) propagate."""
    used = 0
    for _ in range(rounds):
        try:
            ast.parse(code)
            return code, used, True
        except SyntaxError as error:
            line_number = error.lineno
        lines = code.split("\n")
        if not line_number or line_number > len(lines):
            return code, used, False
        line = lines[line_number - 1]
        fixed = _GROUP.sub(lambda m: m.group(0) if _is_expression(m.group(1)) else "{{" + m.group(1) + "}}", line)
        if fixed == line:
            return code, used, False
        lines[line_number - 1] = fixed
        code = "\n".join(lines)
        used += 1
    return code, used, False

"""The child process of ``ProcessGame``: one ``SpadeGame``, one JSON request per line on stdin,
one JSON answer per line on stdout. The environment's own prints go to stderr."""

import json
import os
import sys


def main(folder):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import game as runtime

    answer_stream = sys.stdout
    sys.stdout = sys.stderr  # the environment's prints must not break the protocol
    spade_game = None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            op = request["op"]
            if op == "open":
                spade_game = runtime.SpadeGame(runtime.read_code(folder), runtime.read_metadata(folder), request.get("maxTurns"))
                result = {"kind": spade_game.kind, "maxTurns": spade_game.max_turns, "tools": spade_game.tools(),
                          "hint": spade_game.hint(), "firstTurnTemplate": spade_game.metadata.get("firstTurnTemplate"),
                          "toolSystemTemplate": spade_game.metadata.get("toolSystemTemplate")}
            elif op == "reset":
                observation, info = spade_game.reset(request.get("seed"), bool(request.get("hinted")))
                result = {"observation": observation, "info": info}
            elif op == "step":
                observation, reward, terminated, truncated, info = spade_game.step(request["reply"], request.get("toolCalls"))
                result = {"observation": observation, "reward": reward, "terminated": terminated, "truncated": truncated,
                          "info": info, "return": spade_game.episode_return}
            elif op == "close":
                spade_game.close()
                result = None
            else:
                raise ValueError(f"unknown op {op!r}")
            answer = {"result": result}
        except Exception as error:
            answer = {"error": f"{type(error).__name__}: {error}"}
        answer_stream.write(json.dumps(answer, default=str) + "\n")
        answer_stream.flush()
        if request.get("op") == "close":
            return


if __name__ == "__main__":
    main(sys.argv[1])

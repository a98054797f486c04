"""Congruence puzzle: find the smallest positive number with given remainders (the Chinese
remainder theorem), with feedback on which conditions a guess meets.

A math-grounded multi-turn environment in the SPADE format: the Agent answers with \\boxed{n}.
"""

import math
import random
import re


class CongruencePuzzleEnv:
    """Find the smallest positive x with x = r_i (mod m_i) for pairwise coprime moduli m_i."""

    MODULI = (3, 4, 5, 7, 9, 11, 13)

    def __init__(self, max_turns=6, conditions=3, **kwargs):
        self.max_turns = max_turns
        self.conditions = conditions
        self.moduli = []
        self.remainders = []
        self.answer = 0
        self.turn = 0
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        while True:
            moduli = sorted(rng.sample(self.MODULI, self.conditions))
            if all(math.gcd(a, b) == 1 for i, a in enumerate(moduli) for b in moduli[i + 1:]):
                break
        self.moduli = moduli
        self.answer = rng.randint(1, math.prod(moduli) - 1)
        self.remainders = [self.answer % m for m in moduli]
        self.turn = 0
        lines = [f"x leaves remainder {r} when divided by {m}" for m, r in zip(self.moduli, self.remainders)]
        observation = (
            "Find the smallest positive whole number x such that:\n- " + "\n- ".join(lines)
            + f"\nAnswer as \\boxed{{x}}. You have {self.max_turns} attempts; after a wrong one I tell you "
            "which conditions it meets."
        )
        return observation, {"moduli": list(self.moduli)}

    def step(self, action):
        self.turn += 1
        truncated = self.turn >= self.max_turns
        match = re.search(r"\\boxed\{\s*(-?\d+)\s*\}", action)
        if not match:
            return "Answer with a whole number inside \\boxed{...}.", 0.0, False, truncated, {"turn": self.turn, "met": 0}
        guess = int(match.group(1))
        met = [m for m, r in zip(self.moduli, self.remainders) if guess % m == r]
        info = {"turn": self.turn, "met": len(met)}
        if guess == self.answer:
            return f"Correct: x = {guess}.", 1.0, True, False, info
        if guess > 0 and len(met) == len(self.moduli):
            return f"{guess} meets every condition but is not the smallest such number.", 0.5, True, False, info
        feedback = f"{guess} meets {len(met)} of {len(self.moduli)} conditions" + (f" (mod {', '.join(map(str, met))})." if met else ".")
        if truncated:
            return feedback + f" No attempts left; x was {self.answer}.", 0.0, False, True, info
        return feedback, 0.0, False, False, info

    def hint(self):
        return "Take the largest modulus first, list numbers with its remainder, and keep only those that fit the next condition."

    def solution(self):
        return f"\\boxed{{{self.answer}}}"

    def close(self):
        pass

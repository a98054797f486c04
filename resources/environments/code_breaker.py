"""Code breaker: find a secret code of distinct digits from bulls-and-cows feedback.

A multi-turn text game in the SPADE format: the Agent answers with \\boxed{1234}.
"""

import random
import re


class CodeBreakerEnv:
    """Guess a secret of `length` distinct digits; each guess is answered with how many digits
    are right and in the right place (bulls) and right but misplaced (cows)."""

    def __init__(self, max_turns=12, length=4, **kwargs):
        self.max_turns = max_turns
        self.length = length
        self.secret = ""
        self.turn = 0
        self.history = []
        self.reset()

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.secret = "".join(rng.sample("0123456789", self.length))
        self.turn = 0
        self.history = []
        observation = (
            f"I am thinking of a code of {self.length} different digits (0-9). "
            f"Guess it in at most {self.max_turns} turns. Answer with one guess per turn as "
            f"\\boxed{{{'0123456789'[:self.length]}}}. After each guess I say how many digits are "
            "bulls (right digit, right place) and cows (right digit, wrong place)."
        )
        return observation, {"turn": 0, "length": self.length}

    def _parse(self, action):
        match = re.search(r"\\boxed\{([^}]*)\}", action)
        if not match:
            return None, "Please answer with your guess inside \\boxed{...}."
        guess = match.group(1).strip()
        if len(guess) != self.length or not guess.isdigit():
            return None, f"A guess must be exactly {self.length} digits, got '{guess}'."
        if len(set(guess)) != self.length:
            return None, f"The digits of a guess must all be different, got '{guess}'."
        return guess, None

    def step(self, action):
        self.turn += 1
        truncated = self.turn >= self.max_turns
        guess, problem = self._parse(action)
        if problem:
            return problem + self._turns_left(), 0.0, False, truncated, {"turn": self.turn, "valid": False}
        bulls = sum(a == b for a, b in zip(guess, self.secret))
        cows = sum(digit in self.secret for digit in guess) - bulls
        self.history.append((guess, bulls, cows))
        info = {"turn": self.turn, "valid": True, "bulls": bulls, "cows": cows}
        if bulls == self.length:
            return f"{guess}: {bulls} bulls. You cracked the code in {self.turn} turns!", 1.0, True, False, info
        if truncated:
            return f"{guess}: {bulls} bulls, {cows} cows. Out of turns; the code was {self.secret}.", 0.0, False, True, info
        return f"{guess}: {bulls} bulls, {cows} cows." + self._turns_left(), 0.0, False, False, info

    def _turns_left(self):
        return f" {self.max_turns - self.turn} turns left."

    def hint(self):
        return (
            "Spend the first guesses on disjoint sets of digits to learn which digits are in the "
            "code, then move one digit at a time and watch how the bulls change."
        )

    def solution(self):
        return f"\\boxed{{{self.secret}}}"

    def close(self):
        pass

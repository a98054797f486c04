import random
import re

# The word a reply must contain to win. A small story model writes it now and then by chance,
# which makes this the smallest environment a run can visibly learn (README "Training inside the run").
WORD = "was"

OPENINGS = [
    "Once upon a time",
    "One day",
    "There was a little girl",
    "A boy had a ball",
    "The sun was shining",
    "Tom and Sue went to the park",
    "A big dog lived in a house",
    "Mom said",
]


class StoryWordEnv:
    """Continue a story; the reply wins when it contains the target word. One turn per episode."""

    def __init__(self, **kwargs):
        self.opening = OPENINGS[0]

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.opening = rng.choice(OPENINGS)
        return f"{self.opening}", {"word": WORD}

    def step(self, action):
        won = re.search(r"\b" + re.escape(WORD) + r"\b", action, re.IGNORECASE) is not None
        return ("You used the word." if won else "The word was missing."), (1.0 if won else 0.0), True, False, {}

    def solution(self):
        return f"{self.opening} {WORD} end."

    def hint(self):
        return f"Use the word '{WORD}'."

    def close(self):
        pass

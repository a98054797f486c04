class LanternCaveEnv:
    """Cross a dark cave before the lantern's oil runs out; the gate before the exit opens to the
    sum of the numbers carved in the chambers on the way."""

    ACTIONS = "Actions: \\boxed{forward}, \\boxed{back}, \\boxed{search}, \\boxed{say N}"

    def __init__(self, max_turns=14, **kwargs):
        self.max_turns = max_turns
        self.turn_count = 0
        self.exit = 5
        self.position = 0
        self.oil = 0
        self.flasks = set()
        self.carvings = []
        self.gate_open = False
        self.reset()

    def reset(self, seed=None) -> Tuple[str, dict]:
        rng = random.Random(seed)
        self.turn_count = 0
        self.position = 0
        self.oil = 4
        self.flasks = set(rng.sample(range(1, self.exit), 2))  # hidden until searched
        self.carvings = [rng.randint(2, 9) for _ in range(self.exit)]
        self.gate_open = False
        rules = ("A cave of chambers 0-5; the exit is chamber 5. Each move or search burns 1 oil, "
                 "and with no oil left you are lost. Two chambers hide a flask of oil (+3). The gate "
                 "before chamber 5 opens when you say the sum of the numbers carved in chambers 0-4.")
        return rules + "\n" + self._status("You light the lantern."), {}

    def _status(self, message):
        carving = self.carvings[self.position] if self.position < self.exit else "-"
        gate = "open" if self.gate_open else "shut"
        return (f"{message}\nChamber {self.position} | Carved number: {carving} | Oil: {self.oil} | "
                f"Gate: {gate} | Turn {self.turn_count}/{self.max_turns}\n" + self.ACTIONS)

    def step(self, action: str) -> Tuple[str, float, bool, bool, dict]:
        self.turn_count += 1
        truncated = self.turn_count >= self.max_turns
        match = re.search(r'\\boxed\{([^}]*)\}', action)
        if not match:
            return "Reply with one action in \\boxed{}. " + self.ACTIONS, 0.0, False, truncated, {}
        cmd = match.group(1).strip().lower()
        if cmd.startswith("say"):
            if check_answer(cmd[3:].strip(), sum(self.carvings)):
                self.gate_open = True
                message = "The gate grinds open."
            else:
                message = "The gate stays shut: that is not the sum."
        elif cmd in ("forward", "back", "search"):
            self.oil -= 1
            if cmd == "search":
                found = self.position in self.flasks
                self.flasks.discard(self.position)
                self.oil += 3 if found else 0
                message = "You find a flask of oil (+3)." if found else "Nothing here."
            elif cmd == "back":
                self.position = max(0, self.position - 1)
                message = "You step back."
            elif self.position == self.exit - 1 and not self.gate_open:
                self.oil += 1  # the gate does not let you pass: no oil burnt
                message = "The gate is shut."
            else:
                self.position += 1
                message = "You walk on."
        else:
            message = "Unknown action."
        if self.position == self.exit:
            return "You step out into daylight. You win!", 1.0, True, False, {}
        if self.oil <= 0:
            return "The lantern dies. You are lost in the dark.", 0.0, True, False, {}
        if truncated:
            return "Time is up. " + self._status(message), 0.0, False, True, {}
        return self._status(message), 0.0, False, False, {}

    def solution(self) -> str:
        searches = sorted(self.flasks)
        return (f"Walk forward, reading each carving and searching chambers {searches} for oil; "
                f"at chamber 4 say {sum(self.carvings)}, then go forward to chamber 5.")

    def close(self):
        pass

# A multi-turn tool-use environment written the way the reference's Designer writes them: it
# subclasses the provided ToolUseBaseEnv without importing it and uses its attribute API
# (self._tools, self._state, self._expected_answer, an overridden _check_answer). A wrong answer
# does not end the episode; the open step is named instead.
import json
import random


class ErrandStepsEnv(ToolUseBaseEnv):
    def reset(self, seed=None):
        self.turn_count = 0
        self._call_history = []
        rng = random.Random(seed)
        self._state = {"cart": [], "paid": False, "last_viewed": None,
                       "catalog": {name: rng.randint(2, 9) for name in ("tea", "rice", "soap", "milk")}}
        self.item = rng.choice(sorted(self._state["catalog"]))
        self._tools = {
            "view_catalog": {"description": "Show the catalogue with prices", "parameters": {"type": "object", "properties": {}}},
            "add_to_cart": {"description": "Put an item in the cart", "parameters": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}},
            "checkout": {"description": "Pay for the cart", "parameters": {"type": "object", "properties": {"method": {"type": "string", "enum": ["card", "cash"]}}, "required": ["method"]}},
        }
        self._user_messages = ["Show me what the shop sells.", f"Put {self.item} in my cart.", "Pay by card."]
        self._message_criteria = [
            lambda s: s["last_viewed"] == "catalog",
            lambda s: self.item in s["cart"],
            lambda s: s["paid"],
        ]
        self._current_msg = 0
        self._expected_answer = "done"
        return self._user_messages[0], {}

    def _advance_if_done(self):
        if self._current_msg >= len(self._user_messages):
            return ""
        if self._message_criteria[self._current_msg](self._state):
            self._current_msg += 1
            if self._current_msg >= len(self._user_messages):
                return "\n\n[ALL STEPS COMPLETE] Submit <answer>done</answer>."
            return f"\n\n[STEP {self._current_msg} COMPLETE - NEW INSTRUCTION] {self._user_messages[self._current_msg]}"
        return ""

    def _check_answer(self, answer):
        return answer.strip().lower() == "done" and self._current_msg >= len(self._user_messages)

    def tool_view_catalog(self):
        self._state["last_viewed"] = "catalog"
        return json.dumps(self._state["catalog"], sort_keys=True) + self._advance_if_done()

    def tool_add_to_cart(self, item=""):
        if item not in self._state["catalog"]:
            return f"Error: no item {item}" + self._advance_if_done()
        self._state["cart"].append(item)
        return f"Added {item}" + self._advance_if_done()

    def tool_checkout(self, method="card"):
        if not self._state["cart"] or method != "card":
            return "Error: nothing to pay or method refused" + self._advance_if_done()
        self._state["paid"] = True
        return "Paid" + self._advance_if_done()

    def solution(self):
        return f"view_catalog(), add_to_cart(item='{self.item}'), checkout(method='card'), <answer>done</answer>"

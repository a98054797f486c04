"""Warehouse audit: a tool-use environment built on the runtime's ToolUseBaseEnv.

The Agent calls tools with <tool_call>{"name": ..., "arguments": {...}}</tool_call> and submits
the total value of one category's stock with <answer>...</answer>.
"""

import random

from spade_env import ToolUseBaseEnv

PRODUCTS = {
    "tools": ["hammer", "wrench", "saw", "drill", "pliers"],
    "garden": ["rake", "hose", "shovel", "planter", "trowel"],
    "kitchen": ["kettle", "whisk", "ladle", "grater", "skillet"],
}


class WarehouseAuditEnv(ToolUseBaseEnv):
    """Work out the total stock value (units x unit price) of one product category."""

    def __init__(self, max_turns=15, **kwargs):
        self.inventory = {}
        self.category = ""
        super().__init__(max_turns=max_turns, **kwargs)

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.turn_count = 0
        self.inventory = {}
        for category, names in PRODUCTS.items():
            for name in rng.sample(names, 3):
                self.inventory[name] = {"category": category, "units": rng.randint(0, 40), "price": rng.randint(2, 60)}
        self.category = rng.choice(sorted(PRODUCTS))
        self.expected_answer = str(sum(item["units"] * item["price"] for item in self.inventory.values() if item["category"] == self.category))
        observation = (
            f"Audit the warehouse: what is the total value of all stock in the '{self.category}' category "
            "(units times unit price, summed over its products)? Use the tools, then give the number as "
            "<answer>...</answer>."
        )
        return observation, {"category": self.category}

    def tool_list_products(self, category: str):
        """List the products of one category.

        Returns a comma-separated list of product names."""
        names = sorted(name for name, item in self.inventory.items() if item["category"] == category)
        return ", ".join(names) if names else f"No products in category '{category}'."

    def tool_get_stock(self, product: str):
        """Units in stock of one product."""
        item = self.inventory.get(product)
        return f"{product}: {item['units']} units" if item else f"Unknown product '{product}'."

    def tool_get_price(self, product: str):
        """Unit price of one product, in dollars."""
        item = self.inventory.get(product)
        return f"{product}: ${item['price']} per unit" if item else f"Unknown product '{product}'."

    def hint(self):
        return "List the category's products first, then fetch stock and price for each and add up units times price."

    def solution(self):
        names = sorted(name for name, item in self.inventory.items() if item["category"] == self.category)
        calls = [f'<tool_call>{{"name": "list_products", "arguments": {{"category": "{self.category}"}}}}</tool_call>']
        for name in names:
            calls.append(f'<tool_call>{{"name": "get_stock", "arguments": {{"product": "{name}"}}}}</tool_call>')
            calls.append(f'<tool_call>{{"name": "get_price", "arguments": {{"product": "{name}"}}}}</tool_call>')
        calls.append(f"<answer>{self.expected_answer}</answer>")
        return "\n".join(calls)

// The parts of the multi-turn tool-use designer prompt that are drawn per designer call, as the
// reference does (spade/core/prompts/tool_use_template.py): one real-world domain and one task
// type, the task types weighted 3 : 2 : 1 : 1. Wording is this project's own.

/** The ten domains one of which is drawn per call. */
export const toolUseDomains: readonly string[] = [
  "retail orders (orders, items, refunds, shipping)",
  "flight and hotel travel (search, reserve, pay, cancel)",
  "a telecom account (plans, lines, bills, data add-ons)",
  "personal banking and payments (accounts, transfers, cards, invoices)",
  "a calendar with reminders (events, invitations, reminders)",
  "a file system (files, folders, moving, copying, searching)",
  "an online shop's cart (catalogue, cart, checkout, coupons)",
  "customer-support tickets in a CRM (tickets, status, assignees, notes)",
  "smart-home control (lights, thermostat, locks, scenes)",
  "a project tracker (tasks, assignees, status, due dates)",
];

export type ToolUseTaskType = "execute" | "read_then_write" | "miss_param" | "irrelevant";

export const toolUseTaskTypeText: Readonly<Record<ToolUseTaskType, string>> = {
  execute:
    "TASK VARIANT: execute (the plain path). The user gives atomic instructions and the agent calls the right tools in the right order; each criterion checks the state that results.\n",
  read_then_write:
    "TASK VARIANT: read_then_write. At least ONE instruction makes the agent FIRST read the state with a query tool, decide with a condition on what it read (e.g. 'every order above $100', 'each line over its data cap') and THEN make the dependent change. Its criterion checks that the final state reflects the writes the condition called for, not just that some tool ran.\n",
  miss_param:
    "TASK VARIANT: missing_value. At least ONE instruction relies on a value the user does NOT give (e.g. 'cancel my latest order' without an order id, 'pay the overdue bill' without a bill id). The agent must FIND it with a query tool before the change. The changing tool MUST return an error for a wrong or guessed value, so an invented argument can never meet the criterion.\n",
  irrelevant:
    "TASK VARIANT: with_irrelevant. EXACTLY ONE instruction cannot be satisfied by any tool of the domain (e.g. asking a retail assistant about tomorrow's weather). Add a tool named 'decline_request' with one required string parameter 'reason' whose method sets a flag in the state and then advances; that instruction's criterion is met ONLY by calling decline_request. Offer no other tool that could plausibly serve the irrelevant request.\n",
};

/** The weighted rotation the task type is drawn from. */
export const toolUseTaskTypeRotation: readonly ToolUseTaskType[] = ["execute", "execute", "execute", "read_then_write", "read_then_write", "miss_param", "irrelevant"];

/** A skill's category line in the multi-turn tool-use prompt (the reference's categories). */
export const toolUseSkillCategory: Readonly<Record<string, string>> = {
  "API Orchestration": "Stateful Operations",
  "Data Retrieval": "Query Then Act",
  "State Modification": "Mutation Chains",
  "Error Recovery": "Robustness",
  "Tool Selection": "Decision Making",
  "Multi-Step Workflows": "Sequential Planning",
};

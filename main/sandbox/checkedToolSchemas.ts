import type { ToolSchema } from "../../shared/environment.js";
import { TEXT_CAPS } from "./capText.js";
import { EnvironmentContractError } from "./errors.js";

/** The longest tool name a chat template is given. */
const MAX_TOOL_NAME_CHARS = 64;

/**
 * The tool schemas an open answered, checked as the rollout reads them: each entry is
 * `{"type": "function", "function": {"name": <1-64 characters>, "description"?: str, "parameters"?: object}}`
 * with names unique. Throws an EnvironmentContractError (stage "get_tools") naming the entry and
 * what was expected, so a game whose `get_tools()` answers a malformed list at any open is that
 * game's error, never the run's.
 */
export function checkedToolSchemas(tools: unknown, className: string): ToolSchema[] | null {
  if (tools === null) return null;
  const fail = (detail: string) => {
    const error = new EnvironmentContractError("open", `get_tools() ${detail}`);
    error.stage = "get_tools";
    error.className = className;
    return error;
  };
  if (!Array.isArray(tools)) throw fail("must return a list of tool schemas");
  // The harness's wording (spade_sandbox.py), for a list it did not stop: checked before anything is stored or sent.
  const size = JSON.stringify(tools).length;
  if (size > TEXT_CAPS.tools) throw fail(`answered ${size} characters of tool schemas as JSON, over the ${TEXT_CAPS.tools} character limit`);
  const names = new Set<string>();
  tools.forEach((tool: unknown, index) => {
    const entry = tool as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } } | null;
    const fn = entry?.function;
    if (typeof entry !== "object" || entry === null || entry.type !== "function" || typeof fn !== "object" || fn === null || Array.isArray(fn)) {
      throw fail(`entry ${index} is not {"type": "function", "function": {"name": ...}}`);
    }
    if (typeof fn.name !== "string" || fn.name.length === 0 || fn.name.length > MAX_TOOL_NAME_CHARS) {
      throw fail(`entry ${index}: function.name must be a string of 1 to ${MAX_TOOL_NAME_CHARS} characters`);
    }
    if (fn.description !== undefined && typeof fn.description !== "string") throw fail(`entry ${index} ("${fn.name}"): function.description must be a string`);
    if (fn.parameters !== undefined && (typeof fn.parameters !== "object" || fn.parameters === null || Array.isArray(fn.parameters))) {
      throw fail(`entry ${index} ("${fn.name}"): function.parameters must be an object`);
    }
    if (names.has(fn.name)) throw fail(`declares the tool "${fn.name}" twice`);
    names.add(fn.name);
  });
  return tools as ToolSchema[];
}

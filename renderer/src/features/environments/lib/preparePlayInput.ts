// What the play-by-hand input offers: `\boxed{...}` for a text game; for a tool-use environment its
// tools (name, description, parameters) and ready-to-edit tool calls in the environment's format.
import type { PlayStart } from "../../../../../shared/api/playTypes.js";
import type { ToolSchema } from "../../../../../shared/environment.js";

export interface ToolParameter {
  name: string;
  /** The JSON Schema type, or "any" when the schema gives none. */
  type: string;
  required: boolean;
  description: string | null;
}

export interface PlayableTool {
  name: string;
  description: string | null;
  parameters: ToolParameter[];
  /** A `<tool_call>` action for this tool with a placeholder value per parameter. */
  template: string;
}

export interface PlayInputHelp {
  kind: "text" | "tool";
  placeholder: string;
  tools: PlayableTool[];
  /** The answer action, for tool-use environments; null for text games. */
  answerTemplate: string | null;
}

const placeholders: Record<string, unknown> = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} };

function schemaType(schema: unknown): string {
  const type = (schema as { type?: unknown } | null)?.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type) && typeof type[0] === "string") return type.join(" | ");
  return "any";
}

function parametersOf(tool: ToolSchema): ToolParameter[] {
  const parameters = tool.function.parameters as { properties?: unknown; required?: unknown } | undefined;
  const properties = parameters?.properties && typeof parameters.properties === "object" ? (parameters.properties as Record<string, unknown>) : {};
  const required = Array.isArray(parameters?.required) ? (parameters.required as unknown[]) : [];
  return Object.entries(properties).map(([name, schema]) => {
    const description = (schema as { description?: unknown } | null)?.description;
    return { name, type: schemaType(schema), required: required.includes(name), description: typeof description === "string" && description.trim() ? description : null };
  });
}

/** The tool call `ToolUseBaseEnv.step()` reads, with a placeholder of the right type per parameter. */
export function toolCallTemplate(tool: ToolSchema): string {
  const args = Object.fromEntries(parametersOf(tool).map((parameter) => [parameter.name, placeholders[parameter.type.split(" | ")[0]!] ?? null]));
  return `<tool_call>${JSON.stringify({ name: tool.function.name, arguments: args })}</tool_call>`;
}

export function preparePlayInput(start: Pick<PlayStart, "kind" | "tools">): PlayInputHelp {
  if (start.kind !== "tool") return { kind: "text", placeholder: "\\boxed{...}", tools: [], answerTemplate: null };
  const tools = (start.tools ?? []).map((tool) => ({
    name: tool.function.name,
    description: tool.function.description?.trim() || null,
    parameters: parametersOf(tool),
    template: toolCallTemplate(tool),
  }));
  return { kind: "tool", placeholder: '<tool_call>{"name": ..., "arguments": {...}}</tool_call> or <answer>...</answer>', tools, answerTemplate: "<answer></answer>" };
}

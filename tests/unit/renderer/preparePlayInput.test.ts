import { describe, expect, it } from "vitest";
import { preparePlayInput, toolCallTemplate } from "../../../renderer/src/features/environments/lib/preparePlayInput.js";
import type { ToolSchema } from "../../../shared/environment.js";

const findAccounts: ToolSchema = {
  type: "function",
  function: { name: "find_accounts", description: "Account ids owned by a person", parameters: { type: "object", properties: { owner: { type: "string", description: "the owner's name" }, limit: { type: "integer" }, raw: {} }, required: ["owner"] } },
};
const listOwners: ToolSchema = { type: "function", function: { name: "list_owners" } };

describe("preparePlayInput", () => {
  it("suggests \\boxed{} for a text game and lists no tools", () => {
    expect(preparePlayInput({})).toEqual({ kind: "text", placeholder: "\\boxed{...}", tools: [], answerTemplate: null });
    expect(preparePlayInput({ kind: "text", tools: null }).placeholder).toBe("\\boxed{...}");
  });

  it("lists a tool-use environment's tools with their parameters and never suggests \\boxed{}", () => {
    const help = preparePlayInput({ kind: "tool", tools: [findAccounts, listOwners] });
    expect(help.kind).toBe("tool");
    expect(help.placeholder).not.toContain("boxed");
    expect(help.placeholder).toContain("<tool_call>");
    expect(help.placeholder).toContain("<answer>");
    expect(help.answerTemplate).toBe("<answer></answer>");
    expect(help.tools.map((tool) => tool.name)).toEqual(["find_accounts", "list_owners"]);
    expect(help.tools[0]).toMatchObject({
      description: "Account ids owned by a person",
      parameters: [
        { name: "owner", type: "string", required: true, description: "the owner's name" },
        { name: "limit", type: "integer", required: false, description: null },
        { name: "raw", type: "any", required: false, description: null },
      ],
    });
    expect(help.tools[1]).toMatchObject({ description: null, parameters: [] });
  });

  it("writes a tool call in the format ToolUseBaseEnv.step() reads, with a typed placeholder per parameter", () => {
    expect(toolCallTemplate(findAccounts)).toBe('<tool_call>{"name":"find_accounts","arguments":{"owner":"","limit":0,"raw":null}}</tool_call>');
    expect(toolCallTemplate(listOwners)).toBe('<tool_call>{"name":"list_owners","arguments":{}}</tool_call>');
    const body = /<tool_call>(.*)<\/tool_call>/.exec(toolCallTemplate(findAccounts))?.[1];
    expect(JSON.parse(body!)).toEqual({ name: "find_accounts", arguments: { owner: "", limit: 0, raw: null } });
  });
});

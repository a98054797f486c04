import * as z from "zod";
import { describe, expect, it } from "vitest";
import { addRuleIssue, bool, configStyle, int, num, oneOf, safeParseInput, strict, text, textList } from "../../shared/validation/schema.js";

const schema = strict({
  seed: int(0),
  attempts: int(1, 20).default(3),
  temperature: num(0, 5).optional(),
  kind: oneOf(["llm", "fixed"]).default("llm"),
  name: text({ maxLength: 10 }).optional(),
  path: text({ nonEmpty: true }).optional(),
  skills: textList().optional(),
  flag: bool().optional(),
  nested: strict({ threads: int(1) }).optional(),
}).superRefine((value, context) => {
  if (value.kind === "fixed" && value.path === undefined) addRuleIssue(context, ["path"], 'required when kind is "fixed"');
});

function message(value: unknown): string {
  const result = safeParseInput(schema, value, configStyle("run.json"));
  if (result.ok) throw new Error("expected a failure");
  return result.message;
}

describe("schema messages", () => {
  it("parses and fills defaults", () => {
    expect(safeParseInput(schema, { seed: 1 }, configStyle("run.json"))).toEqual({ ok: true, value: { seed: 1, attempts: 3, kind: "llm" } });
  });

  it("names the field, what it expects and what it got", () => {
    expect(message({ seed: -1 })).toBe("run.json: seed: expected an integer >= 0, got -1");
    expect(message({ seed: 1, attempts: 0 })).toBe("run.json: attempts: expected an integer in [1, 20], got 0");
    expect(message({ seed: 1.5 })).toBe("run.json: seed: expected an integer >= 0, got 1.5");
    expect(message({ seed: "1" })).toBe('run.json: seed: expected an integer >= 0, got "1"');
    expect(message({ seed: 1, temperature: 9 })).toBe("run.json: temperature: expected a number in [0, 5], got 9");
    expect(message({ seed: 1, kind: "llmm" })).toBe('run.json: kind: expected one of "llm", "fixed", got "llmm"');
    expect(message({ seed: 1, name: "x".repeat(80) })).toBe(`run.json: name: expected a string of at most 10 characters, got "${"x".repeat(57)}..." (80 characters)`);
    expect(message({ seed: 1, path: "  " })).toBe('run.json: path: expected a non-empty string of at most 4096 characters, got "  "');
    expect(message({ seed: 1, skills: [] })).toBe("run.json: skills: expected a non-empty array of strings, got []");
    expect(message({ seed: 1, skills: ["a", ""] })).toBe('run.json: skills[1]: expected a non-empty string of at most 4096 characters, got ""');
    expect(message({ seed: 1, flag: 1 })).toBe("run.json: flag: expected true or false, got 1");
    expect(message({ seed: 1, nested: { threads: 0 } })).toBe("run.json: nested.threads: expected an integer >= 1, got 0");
  });

  it("names an unknown key with the known ones, and a missing required key", () => {
    expect(message({ seed: 1, plyas: 3 })).toBe("run.json: plyas: unknown key (known keys: seed, attempts, temperature, kind, name, path, skills, flag, nested)");
    expect(message({ seed: 1, nested: { threads: 1, thread: 2 } })).toBe('run.json: nested.thread: unknown key; did you mean "threads"? (known keys: threads)');
    expect(message({ seed: 1, Atempts: 2 })).toBe('run.json: Atempts: unknown key; did you mean "attempts"? (known keys: seed, attempts, temperature, kind, name, path, skills, flag, nested)');
    expect(message({})).toBe("run.json: seed: required key is missing");
    expect(message([])).toBe("run.json: expected an object, got []");
  });

  it("says a rule across fields as written", () => {
    expect(message({ seed: 1, kind: "fixed" })).toBe('run.json: path: required when kind is "fixed"');
  });

  it("gives JSON Schema for editors from the same schema", () => {
    const json = z.toJSONSchema(schema, { io: "input" }) as { properties: Record<string, { minimum?: number; maximum?: number; enum?: string[] }>; additionalProperties: boolean };
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.attempts).toMatchObject({ minimum: 1, maximum: 20 });
    expect(json.properties.kind!.enum).toEqual(["llm", "fixed"]);
  });
});

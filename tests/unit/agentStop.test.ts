import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";

const base = { db: "w.sqlite", backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "m" }, corpus: null };

describe("agent.stop", () => {
  it("is off as in the reference, and a named deviation when set", () => {
    const plain = parseRunConfig(base, "run.json");
    expect(plain.agent.stop).toBeNull();
    expect(describeAblations(plain).some((badge) => badge.includes("stop"))).toBe(false);
    const stopped = parseRunConfig({ ...base, agent: { stop: ["."] } }, "run.json");
    expect(stopped.agent.stop).toEqual(["."]);
    expect(describeAblations(stopped)).toContain('deviation: agent replies stop at "."');
    expect(parseRunConfig(stopped, "stored").agent.stop).toEqual(["."]);
  });

  it("refuses an empty stop string by key", () => {
    expect(() => parseRunConfig({ ...base, agent: { stop: [""] } }, "run.json")).toThrow(/run\.json: agent\.stop\[0\]: expected a non-empty string/);
  });
});

import { describe, expect, it } from "vitest";
import { buildTurnMessages } from "../../main/rollout/buildTurnMessages.js";
import { extractBoxedAction, lastBoxedContent } from "../../main/rollout/extractAction.js";
import { turnSeed } from "../../main/rollout/playEpisode.js";

describe("extractBoxedAction", () => {
  it("takes the last \\boxed{...} of the reply", () => {
    expect(extractBoxedAction("I think \\boxed{left} no wait \\boxed{right}.")).toBe("\\boxed{right}");
  });
  it("keeps nested braces balanced", () => {
    expect(extractBoxedAction("answer: \\boxed{\\frac{1}{2}} done")).toBe("\\boxed{\\frac{1}{2}}");
  });
  it("falls back to the raw reply without a box, or with an unclosed one", () => {
    expect(extractBoxedAction("move north")).toBe("move north");
    expect(extractBoxedAction("\\boxed{a} then \\boxed{b")).toBe("\\boxed{a}");
    expect(lastBoxedContent("x \\boxed{42}")).toBe("42");
    expect(lastBoxedContent("no box")).toBeNull();
  });
});

describe("buildTurnMessages", () => {
  it("alternates observations and replies after the system prompt", () => {
    const messages = buildTurnMessages("sys", ["o0", "o1", "o2"], ["r0", "r1"]);
    expect(messages.map((m) => `${m.role}:${m.content}`)).toEqual(["system:sys", "user:o0", "assistant:r0", "user:o1", "assistant:r1", "user:o2"]);
  });
  it("keeps the first observation and only the last N exchanges", () => {
    const messages = buildTurnMessages("sys", ["o0", "o1", "o2", "o3"], ["r0", "r1", "r2"], 1);
    expect(messages.map((m) => m.content)).toEqual(["sys", "o0", "r2", "o3"]);
  });
});

describe("turnSeed", () => {
  it("is deterministic and differs by turn and episode", () => {
    expect(turnSeed(7, 0)).toBe(turnSeed(7, 0));
    expect(turnSeed(7, 0)).not.toBe(turnSeed(7, 1));
    expect(turnSeed(7, 0)).not.toBe(turnSeed(8, 0));
    expect(Number.isInteger(turnSeed(123456789, 24)) && turnSeed(123456789, 24) >= 0).toBe(true);
  });
});

describe("lastBoxedContent", () => {
  it("skips an unclosed box at the end and reads the complete one before it", () => {
    expect(lastBoxedContent("\\boxed{7} and then \\boxed{4")).toBe("7");
    expect(lastBoxedContent("\\boxed{4")).toBeNull();
    expect(lastBoxedContent("\\boxed{\\frac{1}{2}}")).toBe("\\frac{1}{2}");
  });
});

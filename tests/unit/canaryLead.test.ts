import { describe, expect, it } from "vitest";
import type { ResetResult, StepResult } from "../../shared/environment.js";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import { SandboxTimeoutError } from "../../main/sandbox/errors.js";
import { CanaryHungError, CanaryLead } from "../../main/selfplay/CanaryLead.js";

/** A session whose reset and steps answer when the test says (`answer`), recording what was sent. */
function scriptedSession() {
  const sent: string[] = [];
  const pending: Array<{ what: string; resolve: (value: unknown) => void; reject: (error: Error) => void }> = [];
  const call = <T>(what: string) =>
    new Promise<T>((resolve, reject) => {
      sent.push(what);
      pending.push({ what, resolve: resolve as (value: unknown) => void, reject });
    });
  const session: EnvSession = {
    className: "Game",
    kind: "text",
    tools: null,
    reset: (seed) => call<ResetResult>(`reset ${seed}`),
    step: (action) => call<StepResult>(`step ${action}`),
    hint: async () => "hint",
    solution: async () => "solution",
    close: async () => undefined,
  };
  const answer = (what: string, error?: Error) => {
    const index = pending.findIndex((entry) => entry.what === what);
    if (index < 0) throw new Error(`nothing pending: ${what} (pending: ${pending.map((entry) => entry.what).join(", ")})`);
    const [entry] = pending.splice(index, 1);
    if (error) entry!.reject(error);
    else entry!.resolve(what.startsWith("reset") ? { observation: "o", info: {} } : { observation: "o", reward: 0, terminated: false, truncated: false, info: {} });
  };
  return { session, sent, answer };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A lead whose canary's reset has answered, a follower of it, and the follower's first step asked (held back). */
async function followerWaitingOnFirstStep() {
  const lead = new CanaryLead();
  const canary = scriptedSession();
  const other = scriptedSession();
  const led = lead.lead(canary.session);
  const reset = led.reset(1);
  canary.answer("reset 1");
  await reset;
  const following = lead.follow(other.session);
  const waiting = following.session.step("a");
  return { lead, canary, other, led, following, waiting };
}

describe("CanaryLead: the canary leads the game's other plays", () => {
  it("passes the reset once the canary's reset answered, and lets a follower's k-th step go only after the canary's k-th", async () => {
    const lead = new CanaryLead();
    const canary = scriptedSession();
    const other = scriptedSession();
    const led = lead.lead(canary.session);
    let passed = false;
    void lead.resetPassed.then(() => (passed = true));
    const canaryReset = led.reset(1);
    await settle();
    expect(passed).toBe(false);
    canary.answer("reset 1");
    await canaryReset;
    await settle();
    expect(passed).toBe(true);

    const following = lead.follow(other.session);
    const otherReset = following.session.reset(2);
    other.answer("reset 2");
    await otherReset;
    const otherStep = following.session.step("a");
    await settle();
    // Held back: the canary has not taken its first step.
    expect(other.sent).toEqual(["reset 2"]);
    const canaryStep = led.step("x");
    await settle();
    expect(other.sent).toEqual(["reset 2"]);
    canary.answer("step x");
    await canaryStep;
    await settle();
    expect(other.sent).toEqual(["reset 2", "step a"]);
    other.answer("step a");
    await otherStep;
    // The second step waits for the canary's second, not for its first.
    const secondStep = following.session.step("b");
    await settle();
    expect(other.sent).toEqual(["reset 2", "step a"]);
    lead.end(false);
    await settle();
    expect(other.sent).toEqual(["reset 2", "step a", "step b"]);
    other.answer("step b");
    await secondStep;
    expect(following.cut).toBe(false);
  });

  it("drops the followers waiting when the canary hits the deadline: their step is never sent, and they are marked cut", async () => {
    const { lead, canary, other, led, following, waiting } = await followerWaitingOnFirstStep();
    const late = scriptedSession();
    const canaryStep = led.step("x");
    canary.answer("step x", new SandboxTimeoutError("step()", 1000));
    await expect(canaryStep).rejects.toThrow(SandboxTimeoutError);
    await expect(waiting).rejects.toThrow(CanaryHungError);
    expect(following.cut).toBe(true);
    expect(other.sent).toEqual([]);
    expect(lead.hung).toBe(true);
    // A play that starts afterwards is cut at its reset, before anything reaches its sandbox.
    const afterwards = lead.follow(late.session);
    await expect(afterwards.session.reset(3)).rejects.toThrow(CanaryHungError);
    expect(afterwards.cut).toBe(true);
    expect(late.sent).toEqual([]);
  });

  it("lets the followers go on when the canary's step fails other than by the deadline (its own outcome, not a hang)", async () => {
    const { lead, canary, other, led, following, waiting } = await followerWaitingOnFirstStep();
    const canaryStep = led.step("x");
    canary.answer("step x", new Error("ValueError: bad move"));
    await expect(canaryStep).rejects.toThrow("bad move");
    await settle();
    expect(other.sent).toEqual(["step a"]);
    other.answer("step a");
    await waiting;
    expect(following.cut).toBe(false);
    expect(lead.hung).toBe(false);
  });

  it("never passes the reset of a canary that hung in it (the loop waits for the canary's end instead)", async () => {
    const lead = new CanaryLead();
    const canary = scriptedSession();
    let passed = false;
    void lead.resetPassed.then(() => (passed = true));
    const reset = lead.lead(canary.session).reset(1);
    canary.answer("reset 1", new SandboxTimeoutError("reset()", 1000));
    await expect(reset).rejects.toThrow(SandboxTimeoutError);
    lead.end(true);
    await settle();
    expect(passed).toBe(false);
    expect(lead.hung).toBe(true);
  });
});

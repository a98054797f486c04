// Imported environment sets in the workbench: a member opens as a stored environment (editor),
// validates and plays by hand in the real sandbox, and a fixed-pool run started with the form's
// config draws from the set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../../shared/llm.js";
import { fixtureCode } from "../../../main/bench/uiFixture.js";
import { Workbench } from "../../../main/api/Workbench.js";
import { addEnvSetMembers, listEnvSetMembers } from "../../../main/store/queries/envSets.js";
import { buildRunConfig, defaultRunForm } from "../../../renderer/src/features/runs/lib/buildRunConfig.js";
import { checkRunForm } from "../../../renderer/src/features/runs/lib/checkRunForm.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../../support/fakeOpenAiServer.js";
import { selfPlayReply } from "../../support/selfPlayScript.js";

let dir: string;
let workbench: Workbench;
let model: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-sets-"));
  workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), modelsDir: join(dir, "models") });
  addEnvSetMembers(workbench.db, "imported", [{ code: fixtureCode, source: "guess.py", className: "GuessNumberEnv", hint: "Halve the range each time.", skill: "Logical Deduction" }]);
  model = await startFakeOpenAiServer((request) => ({ json: { choices: [{ index: 0, message: { role: "assistant", content: selfPlayReply({ messages: request.body.messages as ChatMessage[] }) }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 5 } } }));
});

afterAll(async () => {
  await workbench?.close();
  await model?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("imported environment sets in the workbench", () => {
  it("opens a member as a stored environment once, with its hint, then validates and plays it by hand", async () => {
    const [member] = listEnvSetMembers(workbench.db, "imported");
    expect(member?.environmentId).toBeNull();
    const { envId } = await workbench.api.openEnvSetMember({ set: "imported", codeSha256: member!.codeSha256 });
    expect(await workbench.api.openEnvSetMember({ set: "imported", codeSha256: member!.codeSha256 })).toEqual({ envId });
    expect((await workbench.api.getEnvSet({ name: "imported" })).items[0]?.environmentId).toBe(envId);
    const env = await workbench.api.getEnvironment({ envId });
    expect(env).toMatchObject({ source: "import", runId: null, className: "GuessNumberEnv", code: fixtureCode, hint: { text: "Halve the range each time." } });
    await expect(workbench.api.openEnvSetMember({ set: "imported", codeSha256: "0".repeat(64) })).rejects.toThrow(/has no member 000000000000/);

    expect((await workbench.api.validateCode({ code: env.code })).valid).toBe(true);
    const play = await workbench.api.startPlay({ envId, seed: 0 });
    expect(play.observation).toContain("Guess a number between 1 and 10");
    const step = await workbench.api.playStep({ sessionId: play.sessionId, action: "\\boxed{7}" });
    expect(step).toMatchObject({ reward: 1, terminated: true, episodeReturn: 1 });
    await workbench.api.endPlay({ sessionId: play.sessionId });
  }, 120_000);

  it("runs a fixed pool on the set from the start form's config", async () => {
    const form = { ...defaultRunForm, backendKind: "openai" as const, baseUrl: model.baseUrl, model: "scripted", designerKind: "fixed" as const, designerSet: "imported", envsPerIteration: "1", plays: "1", hintPlays: "1", maxTurns: "2", extra: '{"backend": {"stream": false, "logprobs": false}, "training": null}' };
    const checked = checkRunForm(form);
    expect(checked).toHaveProperty("config");
    expect(buildRunConfig(form).designer).toMatchObject({ kind: "fixed", set: "imported" });
    const { runId } = await workbench.api.startRun({ config: (checked as { config: Record<string, unknown> }).config });
    const deadline = Date.now() + 90_000;
    let run = await workbench.api.getRun({ runId });
    while (run.status === "running" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = await workbench.api.getRun({ runId });
    }
    expect(run.status, run.error ?? "").toBe("completed");
    const page = await workbench.api.listEnvironments({ runId });
    expect(page.items).toMatchObject([{ source: "fixed", valid: true, className: "GuessNumberEnv" }]);
    // The set view counts the game's plays as its environment page does: the canary is play 0 of the plain plays.
    const drawn = await workbench.api.getEnvironment({ envId: page.items[0]!.id });
    expect(drawn.episodes.filter((episode) => !episode.hinted).map((episode) => episode.canary)).toContain(true);
    const member = (await workbench.api.getEnvSet({ name: "imported" })).items[0]!;
    expect({ plays: member.played?.plays, hintPlays: member.played?.hintPlays }).toEqual({ plays: drawn.stats?.plays, hintPlays: drawn.stats?.hintPlays });
  }, 120_000);
});

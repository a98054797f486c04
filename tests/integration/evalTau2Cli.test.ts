// `spade eval` on the stand-in tau2 suite with the OpenAI backend against a fake server on loopback:
// the agent's text tool calls reach tau2's loop as native `tool_calls` through the engine's endpoint,
// and the CLI line gives pass@1 with its interval, each domain and the user simulator.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../main/cli/commands/evalCommand.js";
import { runCommand } from "../support/runCommand.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";

const suitePath = resolve(import.meta.dirname, "../fixtures/evalSuites/tau2/tau2-shop.json");

function reply(model: string, messages: Array<{ role: string; content: string | null }>): string {
  const first = messages[0]!.content ?? "";
  if (model === "sim") return `Please refund ${/order (\w+)/.exec(first)![1]}.`;
  const asked = messages[1]!.content ?? "";
  return asked.includes("B2") ? "I cannot help." : `<tool_call>${JSON.stringify({ name: "refund", arguments: { order_id: /refund (\w+)/.exec(asked)![1] } })}</tool_call>`;
}

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer((request) => ({ json: completionBody(reply(String(request.body.model), request.body.messages as Array<{ role: string; content: string | null }>)) }));
});
afterAll(() => server?.close());

describe("spade eval on a tau2 suite", () => {
  it("prints pass@1 over tasks x trials with each domain and the user simulator", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-eval-tau2-"));
    const config = join(dir, "eval.json");
    const backend = (model: string) => ({ kind: "openai", baseUrl: server.baseUrl, model, stream: false });
    writeFileSync(config, JSON.stringify({ backend: backend("agent"), userBackend: backend("sim") }));
    const { code, stdout } = await runCommand(evalCommand, ["--suite", suitePath, "--config", config]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^${suitePath.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: 3 tasks x 2 trials, pass@1 66\\.7%, 95% CI \\[\\d+\\.\\d, \\d+\\.\\d\\] \\(4/6 passed, 0 errors; shop_base 66\\.7%; user simulator: openai sim\\)\\n$`));
  }, 120_000);
});

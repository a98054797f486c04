// `spade eval` on ACEBench-Agent items of our own with the OpenAI backend against a fake server on
// loopback: the agent is one served model, the user simulator another named by the eval config's
// `userBackend`; the CLI line names the simulator, and the stored result scores each item.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../main/cli/commands/evalCommand.js";
import { runCommand } from "../support/runCommand.js";
import { storedItemScores, storedScore } from "../../main/eval/storeEvalReport.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listEvalResults } from "../../main/store/queries/evalResults.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";

const suitePath = resolve(import.meta.dirname, "../fixtures/evalSuites/acebench/data_all/data_en/data_agent_multi_turn.json");

function reply(model: string, messages: Array<{ role: string; content: string | null }>): string {
  if (model === "user-sim") return ["Add a banana, please.", "Just one.", "finish conversation"][messages.filter((m) => m.role === "user").length - 1]!;
  const history = messages[1]!.content ?? "";
  if (history.includes("execution:")) return "Done.";
  return history.includes("user:Just one.") ? "[add_item(name='banana', count=1)]" : "How many?";
}

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer((request) => ({ json: completionBody(reply(String(request.body.model), request.body.messages as Array<{ role: string; content: string | null }>)) }));
});
afterAll(() => server?.close());

describe("spade eval on an ACEBench-Agent suite", () => {
  it("plays the user with the configured simulator, prints end-to-end and process accuracy, and stores the items", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-eval-acebench-"));
    const config = join(dir, "eval.json");
    const db = join(dir, "workspace.sqlite");
    const backend = (model: string) => ({ kind: "openai", baseUrl: server.baseUrl, model, stream: false });
    writeFileSync(config, JSON.stringify({ backend: backend("agent"), userBackend: backend("user-sim"), db }));
    const { code, stdout } = await runCommand(evalCommand, ["--suite", suitePath, "--config", config]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${suitePath}: 1/1 items end in the possible answer's state (end-to-end 100.0%, 95% CI [20.7, 100.0]; process 100.0%, 95% CI [20.7, 100.0]; user simulator: openai user-sim)\n`);
    expect(server.requests.filter((r) => r.body.model === "user-sim").length).toBe(3);
    const store = openDatabase(db, { readonly: true });
    try {
      const [result] = listEvalResults(store, { adapterId: null });
      expect(storedScore(result!)).toBe(1);
      expect(storedItemScores(result!)).toEqual([1]);
    } finally {
      store.close();
    }
  }, 120_000);

  it("refuses a user simulator that is not a backend, naming the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-eval-acebench-"));
    const config = join(dir, "eval.json");
    writeFileSync(config, JSON.stringify({ backend: { kind: "openai", baseUrl: server.baseUrl, model: "agent" }, userBackend: { kind: "gpt-4o" } }));
    await expect(evalCommand.run(["--suite", suitePath, "--config", config])).rejects.toThrow(/userBackend/);
  });
});

// `spade eval` on a BFCL-v4 multi-turn suite of our own, with the OpenAI backend against a fake
// server on loopback that writes its calls as <tool_call> text: the CLI's line, and the stored
// result whose per-item scores give the same interval as the report.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalCommand } from "../../main/cli/commands/evalCommand.js";
import { runCommand } from "../support/runCommand.js";
import { storedInterval, storedScore } from "../../main/eval/storeEvalReport.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listEvalResults } from "../../main/store/queries/evalResults.js";
import { completionBody, startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fakeOpenAiServer.js";

const suitePath = resolve(import.meta.dirname, "../fixtures/evalSuites/bfcl/BFCL_v4_multi_turn_base.json");
const toolCall = (name: string, args: Record<string, unknown>) => `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

/** Right on the first item; a wrong amount on the second; no balance read on the third; right on the fourth. */
function reply(messages: Array<{ role: string; content: string | null }>): string {
  if (messages.at(-1)!.role === "tool") return "Done.";
  const users = messages.filter((m) => m.role === "user");
  const first = users[0]!.content ?? "";
  const turn = users.length - 1;
  if (first.startsWith("Deposit 5")) return turn === 0 ? toolCall("deposit", { amount: 5 }) : toolCall("withdraw", { amount: 3 }) + toolCall("get_balance", {});
  if (first.startsWith("Please deposit 20")) return toolCall("deposit", { amount: 2 });
  if (first.startsWith("What is my balance")) return toolCall("withdraw", { amount: 100 });
  return turn === 0 ? "I cannot withdraw." : toolCall("withdraw", { amount: 4 });
}

let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAiServer((request) => ({ json: completionBody(reply(request.body.messages as Array<{ role: string; content: string | null }>)) }));
});
afterAll(() => server?.close());

describe("spade eval on a tool-use suite", () => {
  it("prints the items passing both checks with the interval, and stores per-item scores", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-eval-tools-"));
    const config = join(dir, "eval.json");
    const db = join(dir, "workspace.sqlite");
    writeFileSync(config, JSON.stringify({ backend: { kind: "openai", baseUrl: server.baseUrl, model: "m", stream: false }, db }));
    const { code, stdout } = await runCommand(evalCommand, ["--suite", suitePath, "--config", config]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/BFCL_v4_multi_turn_base\.json: 2\/4 items pass the state and response checks \(50\.0%, 95% CI \[\d+\.\d, \d+\.\d\]\)\n$/);
    // The tools went to the server in the request; the API's results came back as tool messages.
    const sent = server.requests.find((r) => (r.body.messages as Array<{ role: string }>).some((m) => m.role === "tool"))!;
    expect((sent.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).sort()).toEqual(["deposit", "get_balance", "withdraw"]);
    const store = openDatabase(db, { readonly: true });
    try {
      const [result] = listEvalResults(store, { adapterId: null });
      expect(storedScore(result!)).toBe(0.5);
      const interval = storedInterval(result!)!;
      expect(stdout).toContain(`[${(interval[0] * 100).toFixed(1)}, ${(interval[1] * 100).toFixed(1)}]`);
    } finally {
      store.close();
    }
  }, 120_000);
});

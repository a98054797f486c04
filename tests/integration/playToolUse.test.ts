// Play by hand in the real sandbox: a tool-use environment's play starts with its tools, and the
// tool call the play panel writes from them is one ToolUseBaseEnv.step() runs.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Workbench } from "../../main/api/Workbench.js";
import { fixtureCode } from "../../main/bench/uiFixture.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { preparePlayInput } from "../../renderer/src/features/environments/lib/preparePlayInput.js";

const ledger = readFileSync(join(import.meta.dirname, "..", "fixtures", "environments", "reference", "ledger_lookup.py"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "spade-play-tools-"));
const workbench = Workbench.open({ dbPath: join(dir, "w.sqlite"), runControl: null });

afterAll(async () => {
  await workbench.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("play by hand, tool use", () => {
  it("starts a tool-use environment with its tools and plays the panel's tool call", async () => {
    const envId = insertEnvironment(workbench.db, { source: "import", code: ledger, className: "LedgerLookupEnv", valid: true });
    const start = await workbench.api.startPlay({ envId, seed: 3 });
    expect(start.kind).toBe("tool");
    expect(start.tools?.map((tool) => tool.function.name).sort()).toEqual(["find_accounts", "get_balance", "list_owners"]);
    expect(start.tools?.find((tool) => tool.function.name === "get_balance")?.function).toMatchObject({ description: "Balance of one account", parameters: { required: ["account"] } });
    const help = preparePlayInput(start);
    const listOwners = help.tools.find((tool) => tool.name === "list_owners")!;
    const step = await workbench.api.playStep({ sessionId: start.sessionId, action: listOwners.template });
    expect(step.observation).toMatch(/^Tool result:\n\[/);
    expect(step).toMatchObject({ reward: 0, terminated: false });
    await workbench.api.endPlay({ sessionId: start.sessionId });
  }, 120_000);

  it("starts a text game as text, with no tools", async () => {
    const envId = insertEnvironment(workbench.db, { source: "import", code: fixtureCode, className: "GuessNumberEnv", valid: true });
    const start = await workbench.api.startPlay({ envId, seed: 0 });
    expect(start).toMatchObject({ kind: "text", tools: null });
    expect(preparePlayInput(start).placeholder).toBe("\\boxed{...}");
    await workbench.api.endPlay({ sessionId: start.sessionId });
  }, 120_000);
});

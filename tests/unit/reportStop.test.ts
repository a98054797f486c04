// A play cut off because the reply filled its budget or the context shows why in `spade report`
// (`stop: length`, as its last turn stored it), not only as truncated.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../shared/runReport.js";
import { reportCommand } from "../../main/cli/commands/reportCommand.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { runCommand } from "../support/runCommand.js";

describe("spade report on truncated plays", () => {
  it("names the stored stop reason of each cut-off play, in text and JSON", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "spade-report-stop-")), "w.sqlite");
    const db = openDatabase(path);
    const run = createRun(db, { status: "completed" });
    const envId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class A: pass", valid: true, className: "AEnv" });
    const play = (playIndex: number, last: { truncated: boolean; info: Record<string, unknown> }) =>
      insertEpisodeWithTurns(db, { runId: run.id, environmentId: envId, hinted: false, playIndex, return: 0 }, [
        { rawReply: "\\boxed{x}", reward: 0, terminated: false, truncated: false, info: { stop: "ignored: not the last turn" } },
        { rawReply: "a reply that ran on", reward: 0, terminated: false, ...last },
      ]);
    const cut = play(0, { truncated: true, info: { stop: "length" } });
    const limit = play(1, { truncated: true, info: {} }); // the turn limit: truncated, no stop reason
    db.close();

    const text = await runCommand(reportCommand, ["--db", path]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("  #1 iteration 0 slot 0 attempt 1 AEnv: ");
    expect(text.stdout).toContain("      cut off: 1 of 2 plays truncated (stop: length)\n");
    const json = await runCommand(reportCommand, ["--db", path, "--json"]);
    const episodes = (JSON.parse(json.stdout) as RunReport).runs[0]!.environments[0]!.episodes;
    expect(episodes.map((episode) => [episode.id, episode.stop])).toEqual([[cut, "length"], [limit, null]]);
  });
});

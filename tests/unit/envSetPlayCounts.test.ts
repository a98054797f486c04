// A set member's plays are counted as the environment's own statistics count them: the canary is
// one of a rollout's unhinted plays in both (the set view left it out, the environment page not).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computeEnvStatistics } from "../../main/selfplay/envStatistics.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { addEnvSetMembers, createEnvSet, envSetMemberPlays } from "../../main/store/queries/envSets.js";
import { getEnvironment, insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listScheduledPlays } from "../../main/store/queries/schedule.js";
import { envCode } from "../support/selfPlayScript.js";

describe("set member play counts", () => {
  it("count the canary as the environment's statistics do", () => {
    const db = openDatabase(join(mkdtempSync(join(tmpdir(), "spade-set-plays-")), "w.sqlite"));
    createEnvSet(db, "pool");
    addEnvSetMembers(db, "pool", [{ code: envCode.magic, source: "magic.py", className: "MagicWordEnv" }]);
    const run = createRun(db, { status: "completed" });
    const envId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "fixed", code: envCode.magic, valid: true, className: "MagicWordEnv" });
    const play = (hinted: boolean, playIndex: number, canary: boolean, ret: number) => insertEpisodeWithTurns(db, { runId: run.id, environmentId: envId, hinted, playIndex, canary, return: ret }, []);
    play(false, 0, true, 1); // the canary: a win
    play(false, 1, false, 0);
    play(false, 2, false, 0);
    play(true, 0, false, 1);
    const own = computeEnvStatistics(listScheduledPlays(db, envId));
    const member = envSetMemberPlays(db, "pool").get(getEnvironment(db, envId)!.codeSha256!)!;
    expect(own).toMatchObject({ plays: 3, hintPlays: 1, winRate: 1 / 3 });
    expect(member).toMatchObject({ plays: own.plays, hintPlays: own.hintPlays, winRate: own.winRate, meanReturn: own.meanReturn });
    db.close();
  });
});

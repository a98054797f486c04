// A game's plays happen in several rollouts (its regeneration rollout and the replay rollouts that
// replay it): the environment page's episode list and `spade report` say which rollout each play is in.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EpisodeSummary } from "../../shared/api/episodeTypes.js";
import type { RunReport } from "../../shared/runReport.js";
import { Workbench } from "../../main/api/Workbench.js";
import { reportCommand } from "../../main/cli/commands/reportCommand.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { insertEpisodeWithTurns } from "../../main/store/queries/episodes.js";
import { createRun } from "../../main/store/queries/runs.js";
import { setEpisodeRollout } from "../../main/store/queries/schedule.js";
import { prepareEpisodeRows } from "../../renderer/src/features/environments/lib/prepareEpisodeRows.js";
import { runCommand } from "../support/runCommand.js";

describe("a play's rollout", () => {
  it("is in the environment view, the episode list's rows and spade report, replays marked", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "spade-episode-rollout-")), "w.sqlite");
    const workbench = Workbench.open({ dbPath: path, runtime: null, runControl: null, watchMs: null });
    const ids: number[] = [];
    try {
      const { db } = workbench;
      const run = createRun(db, { status: "completed" });
      const envId = insertEnvironment(db, { runId: run.id, iteration: 2, slot: 0, attempt: 0, source: "designer", code: "class A: pass", valid: true, className: "AEnv" });
      const play = (playIndex: number, hinted: boolean, rollout: number | null) => {
        const id = insertEpisodeWithTurns(db, { runId: run.id, environmentId: envId, hinted, playIndex, return: 1 }, [{ rawReply: "x", reward: 1, terminated: true, truncated: false }]);
        if (rollout !== null) setEpisodeRollout(db, id, rollout);
        ids.push(id);
      };
      play(0, false, 3); // a replay play, stored first
      play(1, false, 2);
      play(2, true, 2);
      play(3, false, null); // stored before episodes recorded their rollout: its game's iteration
      play(4, false, 4);
      const other = insertEnvironment(db, { source: "edit", code: "class B: pass", valid: true, className: "BEnv" });
      const manualId = insertEpisodeWithTurns(db, { runId: null, environmentId: other, hinted: false, playIndex: 0, return: 0 }, [{ rawReply: "y", reward: 0, terminated: true, truncated: false }]);

      const view = await workbench.api.getEnvironment({ envId });
      const byId = (episodes: EpisodeSummary[]) => Object.fromEntries(episodes.map((episode) => [episode.id, [episode.rollout, episode.gameIteration]]));
      expect(byId(view.episodes)).toEqual({ [ids[0]!]: [3, 2], [ids[1]!]: [2, 2], [ids[2]!]: [2, 2], [ids[3]!]: [2, 2], [ids[4]!]: [4, 2] });
      expect((await workbench.api.getEpisode({ episodeId: ids[4]! })).rollout).toBe(4);
      const manual = (await workbench.api.getEnvironment({ envId: other })).episodes;
      expect(manual.map((episode) => [episode.id, episode.rollout])).toEqual([[manualId, null]]);

      // The list: the regeneration rollout's plays first, each row naming its rollout.
      const rows = prepareEpisodeRows(view.episodes);
      expect(rows.map((row) => row.rollout)).toEqual(["2", "2", "2", "3 (replay)", "4 (replay)"]);
      expect(rows.slice(3).map((row) => row.episode.id)).toEqual([ids[0], ids[4]]);
      expect(prepareEpisodeRows(manual).map((row) => row.rollout)).toEqual(["–"]);
    } finally {
      await workbench.close();
    }

    const json = await runCommand(reportCommand, ["--db", path, "--json"]);
    const episodes = (JSON.parse(json.stdout) as RunReport).runs[0]!.environments[0]!.episodes;
    expect(Object.fromEntries(episodes.map((episode) => [episode.id, episode.rollout]))).toEqual({ [ids[0]!]: 3, [ids[1]!]: 2, [ids[2]!]: 2, [ids[3]!]: 2, [ids[4]!]: 4 });
    const text = await runCommand(reportCommand, ["--db", path]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("  #1 iteration 2 slot 0 attempt 1 AEnv: ");
    expect(text.stdout).toContain("      plays by rollout: 2: 3, 3 (replay): 1, 4 (replay): 1\n");
  });
});

// Training-data export: advantages checked by hand on a small stored case, and every format's shape.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exportCommand } from "../../main/cli/commands/exportCommand.js";
import { UsageError } from "../../main/cli/UsageError.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listDesignerAttempts, listPlayedEnvironments } from "../../main/store/queries/trainingQueries.js";
import { buildArtGroups } from "../../main/training/buildArtGroups.js";
import { buildDesignerLines } from "../../main/training/buildDesignerLines.js";
import { buildGrpoGroups } from "../../main/training/buildGrpoGroups.js";
import { buildKtoLines } from "../../main/training/buildKtoLines.js";
import { buildSftLines } from "../../main/training/buildSftLines.js";
import { ExportRunNotFoundError, exportTrainingData } from "../../main/training/exportTrainingData.js";
import { groupAdvantages, skillCentredAdvantages } from "../../main/training/groupAdvantages.js";
import { loadPlayGroup } from "../../main/training/loadPlayGroup.js";
import type { StoredPlayGroup } from "../../main/training/StoredPlayGroup.js";
import { seedTrainingWorkspace, systemPrompt } from "../support/trainingFixture.js";

let db: WritableDb;
let ids: ReturnType<typeof seedTrainingWorkspace>;
let groups: StoredPlayGroup[];

beforeAll(() => {
  db = openDatabase(":memory:");
  ids = seedTrainingWorkspace(db);
  groups = listPlayedEnvironments(db, ids.runId).map((env) => loadPlayGroup(db, env));
});

describe("advantages", () => {
  it("z-scores a group with the population standard deviation (as the reference)", () => {
    // mean 0.5; population variance (4 * 0.25) / 4 = 0.25; advantages ±0.5 / 0.5 = ±1
    const result = groupAdvantages([1, 0, 0, 1])!;
    expect(result.mean).toBe(0.5);
    expect(result.std).toBeCloseTo(0.5, 12);
    expect(result.advantages.map((a) => a.toFixed(4))).toEqual(["1.0000", "-1.0000", "-1.0000", "1.0000"]);
  });

  it("keeps a zero-variance or single-play group with advantage 0", () => {
    expect(groupAdvantages([1, 1, 1])).toEqual({ mean: 1, std: 0, advantages: [0, 0, 0], zeroVariance: true });
    expect(groupAdvantages([0.5])).toMatchObject({ advantages: [0], zeroVariance: true });
    expect(groupAdvantages([0.3, 0.1 + 0.2])).toMatchObject({ advantages: [0, 0], zeroVariance: true });
    expect(groupAdvantages([])).toBeNull();
  });

  it("centres designer rewards per skill without dividing by the std", () => {
    expect(skillCentredAdvantages([{ skill: "a", reward: 0 }, { skill: "a", reward: 0.8 }, { skill: "b", reward: 0.5 }]).map((a) => +a.toFixed(10))).toEqual([-0.4, 0.4, 0]);
  });
});

describe("export formats", () => {
  it("only loads environments with counted plays, oldest first", () => {
    expect(groups.map((g) => g.environment.id)).toEqual([ids.envA, ids.envB, ids.envC]);
  });

  it("grpo: one group per environment, canary, hinted and errored plays out, signal-less groups dropped and counted", () => {
    const { lines, counts } = buildGrpoGroups(groups);
    expect(counts).toEqual({ groups: 1, plays: 4, droppedZeroVariance: 1, droppedTooSmall: 1, excludedCanary: 1, excludedHinted: 2, excludedErrored: 1, excludedUnrecorded: 0 });
    const [line] = lines;
    expect(line).toMatchObject({ environmentId: ids.envA, className: "AEnv", skill: "Planning", mean: 0.5 });
    expect(line!.plays.map((p) => [p.playIndex, p.hinted, p.return, +p.advantage.toFixed(4)])).toEqual([
      [0, false, 1, 1],
      [1, false, 0, -1],
      [2, false, 0, -1],
      [3, false, 1, 1],
    ]);
    const play = line!.plays[0]!;
    expect(play.messages).toEqual([
      { role: "system", content: systemPrompt },
      { role: "user", content: `task of env ${ids.envA}` },
      { role: "assistant", content: "<think>\nthink first\n</think>\n\nmove 0 \\boxed{0}" },
      { role: "user", content: "obs after 0" },
      { role: "assistant", content: "move 1 \\boxed{1}" },
    ]);
    expect(play.turns[0]).toMatchObject({ index: 0, action: "0", tokenIds: [5, 6, 7], tokenProbs: [0.5, 0.25, 0.125] });
    expect(play.turns[1]).not.toHaveProperty("tokenIds");
  });

  it("grpo: hinted plays join their group when asked", () => {
    const { lines, counts } = buildGrpoGroups(groups, { includeHinted: true });
    expect(counts.excludedHinted).toBe(0);
    // returns 1,0,0,1,1,1: mean 2/3, population variance (4/9 + 8/9) / 6 = 2/9
    const plays = lines[0]!.plays;
    expect(plays).toHaveLength(6);
    expect(lines[0]!.std).toBeCloseTo(Math.sqrt(2 / 9), 12);
    expect(plays.filter((p) => p.hinted).map((p) => +p.advantage.toFixed(4))).toEqual([0.7071, 0.7071]);
    expect(plays[0]!.messages[1]!.content).not.toContain("HINT");
    expect(plays.find((p) => p.hinted)!.messages[1]!.content).toContain("HINT: try 1");
  });

  it("trl-sft: the best play of each environment that won something", () => {
    const best1 = buildSftLines(groups);
    expect(best1.lines).toHaveLength(3);
    expect(best1.counts).toMatchObject({ lines: 3, groups: 3, groupsWithoutSuccess: 0 });
    for (const line of best1.lines) expect(Object.keys(line)).toEqual(["messages"]);
    expect(best1.lines[0]!.messages[1]!.content).toBe(`task of env ${ids.envA}`);
    expect(buildSftLines(groups, { bestPerGroup: 2 }).lines).toHaveLength(5);
    const strict = buildSftLines(groups, { minReturn: 0.5 });
    expect(strict.counts).toMatchObject({ lines: 2, groupsWithoutSuccess: 1 });
  });

  it("trl-kto: each turn with its exact prompt, labelled by the play's advantage sign", () => {
    const { lines, counts } = buildKtoLines(groups);
    expect(counts).toMatchObject({ lines: 8, desirable: 4, undesirable: 4, droppedZeroVariance: 1, droppedTooSmall: 1 });
    expect(lines[0]).toEqual({
      prompt: [{ role: "system", content: systemPrompt }, { role: "user", content: `task of env ${ids.envA}` }],
      completion: [{ role: "assistant", content: "<think>\nthink first\n</think>\n\nmove 0 \\boxed{0}" }],
      label: true,
    });
    expect(lines[1]!.prompt).toHaveLength(4);
    expect(lines[1]!.prompt[2]).toEqual({ role: "assistant", content: "move 0 \\boxed{0}" });
    expect(lines.map((l) => l.label)).toEqual([true, true, false, false, false, false, true, true]);
  });

  it("art: trajectory groups with replies as choices and returns as rewards", () => {
    const { lines, counts } = buildArtGroups(groups);
    expect(counts).toMatchObject({ groups: 1, trajectories: 4 });
    const trajectory = lines[0]!.trajectories[1]!;
    expect(trajectory.reward).toBe(0);
    expect(trajectory.messages_and_choices[2]).toEqual({
      index: 0,
      finish_reason: "stop",
      message: { role: "assistant", content: "<think>\nthink first\n</think>\n\nmove 0 \\boxed{0}" },
      // The first turn recorded its sampled tokens: ART reads them as `token_id:<id>` with their log-probs.
      logprobs: {
        content: [
          { token: "token_id:5", logprob: Math.log(0.5), bytes: null, top_logprobs: [] },
          { token: "token_id:6", logprob: Math.log(0.25), bytes: null, top_logprobs: [] },
          { token: "token_id:7", logprob: Math.log(0.125), bytes: null, top_logprobs: [] },
        ],
      },
      // ... and as the ids themselves, as vLLM returns them with `return_token_ids`.
      token_ids: [5, 6, 7],
    });
    expect(trajectory.messages_and_choices).toHaveLength(5);
    // The second turn has no token ids: no logprobs, and it is counted.
    expect(trajectory.messages_and_choices[4]).not.toHaveProperty("logprobs");
    expect(counts.choicesWithoutTokenIds).toBe(4);
    expect(trajectory.metadata).toMatchObject({ environmentId: ids.envA, hinted: false });
  });

  it("designer: every scored attempt with its reward, advantage centred per skill", () => {
    const { lines, counts } = buildDesignerLines(listDesignerAttempts(db, ids.runId));
    expect(counts).toEqual({ lines: 3, valid: 2, excludedUnscored: 1, excludedUnrecorded: 0 });
    expect(lines.map((l) => [l.environmentId, l.source, l.skill, l.valid, l.reward, +l.advantage.toFixed(10)])).toEqual([
      [ids.invalid, "designer", "Planning", false, 0, -0.4],
      [ids.envA, "repair", "Planning", true, 0.8, 0.4],
      [ids.envB, "designer", "Logic", true, 0.5, 0],
    ]);
    expect(lines[0]!.prompt).toEqual([{ role: "user", content: "Design a Planning environment." }]);
    expect(lines[0]!.completion).toEqual([{ role: "assistant", content: "no code" }]);
  });
});

describe("exportTrainingData", () => {
  it("writes parseable JSONL files and a manifest with counts, filters and sha256", () => {
    const outDir = mkdtempSync(join(tmpdir(), "spade-export-"));
    const manifest = exportTrainingData(db, { formats: ["grpo", "designer", "trl-sft", "trl-kto", "art"], outDir, runId: ids.runId });
    const written = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"));
    expect(written).toEqual(manifest);
    expect(manifest).toMatchObject({ format: "grpo+designer+trl-sft+trl-kto+art", run: ids.runId, filters: { includeHinted: false, includeErrored: false, sftBestPerGroup: 1, sftMinReturn: 0 } });
    expect(manifest.counts.grpo).toMatchObject({ groups: 1, droppedZeroVariance: 1, droppedTooSmall: 1 });
    expect(manifest.notes).toEqual([expect.stringMatching(/^art\.jsonl: 4 assistant choices have no token ids .*allow_training_without_logprobs=True/)]);
    expect(manifest.files.map((f) => [f.path, f.lines])).toEqual([["grpo.jsonl", 1], ["designer.jsonl", 3], ["trl-sft.jsonl", 3], ["trl-kto.jsonl", 8], ["art.jsonl", 1]]);
    for (const file of manifest.files) {
      const bytes = readFileSync(join(outDir, file.path));
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(file.sha256);
      expect(bytes.length).toBe(file.bytes);
      const lines = bytes.toString("utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(file.lines);
      for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    }
  });

  it("writes empty files (with zero counts) for a run without plays, and refuses an unknown run", () => {
    const outDir = mkdtempSync(join(tmpdir(), "spade-export-"));
    const manifest = exportTrainingData(db, { formats: ["grpo"], outDir, runId: ids.runId, includeHinted: true, includeErrored: true });
    expect(manifest.counts.grpo).toMatchObject({ groups: 1, plays: 7, excludedErrored: 0 });
    expect(() => exportTrainingData(db, { formats: ["grpo"], outDir, runId: 999 })).toThrow(ExportRunNotFoundError);
  });

  it("spade export refuses an unknown format and a missing database with a usage error", async () => {
    await expect(exportCommand.run(["--db", "x.sqlite", "--format", "csv", "--out", "o"])).rejects.toThrow(/--format must be one of grpo, designer, trl-sft, trl-kto, art, metrics-csv, tensorboard, verl, batch, got "csv"/);
    await expect(exportCommand.run(["--db", "/nonexistent/x.sqlite", "--format", "grpo", "--out", "o"])).rejects.toBeInstanceOf(UsageError);
  });
});

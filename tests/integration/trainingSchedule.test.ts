// What each training round trains, on the reference's schedule, checked exactly: a real sandbox and
// SQLite file, a scripted model that returns token ids and log-probs (as vLLM does), and a recording
// trainer. Regeneration every 4 rollouts, proposer delay 4, a round after every rollout, 8 rollouts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoraSpec } from "../../shared/backendConfig.js";
import type { ChatResult } from "../../shared/llm.js";
import { parseRunConfig, type RunConfig } from "../../shared/runConfig.js";
import { openCorpus } from "../../main/corpus/openCorpus.js";
import type { ChatRequest, LlmBackend } from "../../main/llm/LlmBackend.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import type { WritableDb } from "../../main/store/DatabaseHandle.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { listEnvironments } from "../../main/store/queries/environments.js";
import { createRun } from "../../main/store/queries/runs.js";
import { getDesignerAdvantage } from "../../main/store/queries/schedule.js";
import type { BatchLine } from "../../main/training/TrainingBatch.js";
import type { RoundTrainer, RoundTrainRequest } from "../../main/training/RoundTrainer.js";
import { TrainingRound } from "../../main/training/TrainingRound.js";
import { writeLoraAdapter, writeTinyLlamaModel, type TinyLlamaModel } from "../support/ggufWriter.js";
import { createTestPool } from "../support/sandboxTestPool.js";
import { selfPlayReply } from "../support/selfPlayScript.js";

const codes = (text: string) => [...text].map((char) => char.charCodeAt(0) % 512);

/** The scripted self-play model, answering with token ids and log-probs, and switching adapters. */
class TokenBackend implements LlmBackend {
  readonly name = "scripted-tokens";
  readonly parallelism = 2;
  lora: LoraSpec[] = [];
  get adapter(): string | null {
    return this.lora.length === 0 ? null : this.lora.map((spec) => basename(spec.path)).join("+");
  }
  async chat(request: ChatRequest): Promise<ChatResult> {
    const text = selfPlayReply(request);
    // A chat template that adds nothing around the model's own replies: each turn's prompt extends the last.
    const prompt = codes(request.messages.map((message) => (message.role === "assistant" ? message.content : `<${message.role}>${message.content}`)).join(""));
    const tokenIds = codes(text);
    return { text, reasoning: null, finishReason: "stop", promptTokens: prompt.length, completionTokens: tokenIds.length, promptTokenIds: prompt, tokenIds, tokenLogprobs: tokenIds.map(() => -0.25), samplingUsed: request.sampling };
  }
  async setAdapters(lora: LoraSpec[]): Promise<void> {
    this.lora = lora;
  }
  async dispose(): Promise<void> {}
}

/** Records every round's batch as the trainer received it, and writes a LoRA for the tiny base. */
class RecordingTrainer implements RoundTrainer {
  constructor(
    private readonly base: TinyLlamaModel,
    readonly batches: Map<number, BatchLine[]>,
  ) {}
  async train(request: RoundTrainRequest) {
    const [, ...lines] = readFileSync(request.batch, "utf8").trim().split("\n").map((line) => JSON.parse(line) as BatchLine);
    this.batches.set(request.round, lines);
    await writeLoraAdapter(request.output, { base: this.base, seed: request.round + 1, magnitude: 0.01 });
    return { adapterPath: request.output, metrics: { loss: 0 }, mismatch: null };
  }
  async dispose(): Promise<void> {}
}

let dir: string;
let pool: SandboxPool;
let tiny: TinyLlamaModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "spade-train-schedule-"));
  pool = await createTestPool({ size: 2 });
  tiny = await writeTinyLlamaModel(join(dir, "tiny.gguf"));
});
afterAll(async () => {
  await pool?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function configFor(name: string): RunConfig {
  const corpus = join(dir, `${name}.jsonl`);
  writeFileSync(corpus, ["DOC:magic one", "DOC:riddle two", "DOC:magic three"].map((text) => JSON.stringify({ text })).join("\n") + "\n");
  return parseRunConfig(
    {
      db: join(dir, `${name}.sqlite`), seed: 11, iterations: 8, envsPerIteration: 2, actorBatch: 6, hintPlays: 2, maxTurns: 2, skillsPerRegen: 1,
      regenerationInterval: 4, reward: { proposerDelay: 4 },
      backend: { kind: "llama", modelPath: tiny.path }, corpus: { path: corpus },
      training: { every: 1, trainer: { command: ["recording", "trainer"] } },
    },
    `${name}.json`,
  );
}

/** Runs (or resumes) the run; `stopAfterRound` aborts as that round finishes, as a kill between rounds would. */
async function runOnce(config: RunConfig, db: WritableDb, runId: number, batches: Map<number, BatchLine[]>, stopAfterRound?: number) {
  const backend = new TokenBackend();
  const abort = new AbortController();
  const training = new TrainingRound({
    db, runId, seed: config.seed, config: config.training!, schedule: config, backend, baseModelPath: tiny.path,
    createTrainer: async () => new RecordingTrainer(tiny, batches),
    onEvent: (event) => {
      if (event.type === "trainingFinished" && event.round === stopAfterRound) abort.abort();
    },
  });
  const corpus = await openCorpus(config.corpus!.path);
  try {
    return await new SelfPlayLoop(runId, config, { db, backend, pool, corpus, training, signal: abort.signal }).run();
  } finally {
    await training.dispose();
  }
}

interface StoredPlay {
  id: number;
  environmentId: number;
  rollout: number;
  hinted: number;
  return: number;
  adapter: string | null;
}

describe("what each round trains (8 rollouts, regeneration every 4, proposer delay 4, every 1)", () => {
  const batches = new Map<number, BatchLine[]>();
  let config: RunConfig;
  let db: WritableDb;
  let runId: number;

  beforeAll(async () => {
    config = configFor("whole");
    db = openDatabase(config.db);
    runId = createRun(db, { config, seed: config.seed }).id;
    expect(await runOnce(config, db, runId, batches)).toBe("completed");
  }, 240_000);
  afterAll(() => db?.close());

  it("each round holds the agent plays of its rollout and only those, replay rollouts included", () => {
    const plays = db.prepare(`SELECT id, environment_id AS environmentId, rollout, hinted, "return", adapter FROM episodes WHERE run_id = ? ORDER BY id`).all(runId) as StoredPlay[];
    expect([...batches.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const valid = listEnvironments(db, { runId }).filter((env) => env.valid && env.iteration === 0).length;
    for (let rollout = 0; rollout < 8; rollout++) {
      const agent = batches.get(rollout)!.filter((line) => line.role === "agent");
      // In batch order: game by game (slot), the canary first, then by play index.
      const expected = db
        .prepare(`SELECT p.id FROM episodes p JOIN environments e ON e.id = p.environment_id WHERE p.run_id = ? AND p.rollout = ? AND p.hinted = 0 ORDER BY e.slot, e.attempt, p.canary DESC, p.play_index`)
        .pluck()
        .all(runId, rollout) as number[];
      expect(expected.length).toBe(plays.filter((play) => play.rollout === rollout && play.hinted === 0).length);
      // plays follow the actor batch: ceil(6 / valid games) per game, the canary one of them.
      expect(expected.length).toBe(Math.ceil(6 / valid) * valid);
      // The step's batch is the actor batch (6), designer samples first: a scoring round trims agent samples.
      const designer = batches.get(rollout)!.length - agent.length;
      expect(agent.map((line) => line.ref.episodeId)).toEqual(expected.slice(0, 6 - designer));
    }
  });

  it("groups are normalised per game and rollout (population std, equal returns give 0)", () => {
    const plays = db.prepare(`SELECT id, environment_id AS environmentId, rollout, "return" FROM episodes WHERE run_id = ? AND hinted = 0`).all(runId) as StoredPlay[];
    for (const [rollout, lines] of batches) {
      const agent = lines.filter((line) => line.role === "agent");
      for (const environmentId of new Set(agent.map((line) => line.ref.environmentId))) {
        const group = agent.filter((line) => line.ref.environmentId === environmentId);
        // The whole group (before any trim): the game's unhinted plays of this rollout.
        const returns = plays.filter((play) => play.environmentId === environmentId && play.rollout === rollout).map((play) => play.return);
        const mean = returns.reduce((a, b) => a + b, 0) / returns.length;
        const std = Math.sqrt(returns.reduce((sum, r) => sum + (r - mean) ** 2, 0) / returns.length);
        for (const line of group) {
          const own = plays.find((play) => play.id === line.ref.episodeId)!.return;
          expect(line.advantage, `rollout ${rollout} game ${environmentId}`).toBeCloseTo(std > 1e-9 ? (own - mean) / std : 0, 12);
        }
      }
    }
  });

  it("the designer samples of a regeneration appear once, first, in round r + delay with the stored advantage; the last batch never (as the reference)", () => {
    const designed = (iteration: number) => listEnvironments(db, { runId }).filter((env) => env.valid && env.source === "designer" && env.iteration === iteration);
    // spade_rollout.py pops _ENV_SAMPLE_BUFFER[rollout - delay]: regeneration 0 in rollout 4's step. Regeneration 4
    // would be rollout 8's, past the run, and the reference's flush runs only in a rollout that generates: never trained.
    for (const [regeneration, trainedIn] of [[0, 4], [4, null]] as const) {
      for (const [round, lines] of batches) {
        const designer = lines.filter((line) => line.role === "designer" && designed(regeneration).some((env) => env.id === line.ref.environmentId));
        if (round !== trainedIn) {
          expect(designer, `round ${round}`).toEqual([]);
          continue;
        }
        const unmasked = designed(regeneration).filter((env) => getDesignerAdvantage(db, env.id)!.masked === false);
        const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
        const trained = designer.map((line) => ({ id: line.ref.environmentId, advantage: line.advantage })).sort(byId);
        expect(trained).toEqual(unmasked.map((env) => ({ id: env.id, advantage: getDesignerAdvantage(db, env.id)!.advantage })).sort(byId));
        expect(lines.slice(0, designer.length).every((line) => line.role === "designer")).toBe(true);
      }
    }
    expect(batches.get(4)!.some((line) => line.role === "designer")).toBe(true);
    expect([...batches.values()].flat().filter((line) => line.role === "designer").length).toBe(designed(0).length);
  });

  it("the designer line's advantage is the reference's blend, centred per skill, times the \"auto\" scale, worked out here from the stored plays", () => {
    // The reference's formula, written out from spade/core/utils/delayed_env_rewards.py
    // (recompute_delayed_env_rewards_blend, _apply_centered_rewards) and rewards.py
    // (plateau_reward, compute_env_reward_scale), not from this project's designerReward.ts.
    const mean = (values: number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
    const plateau = (rate: number) => (rate < 0.4 ? Math.max(0, 1 - (0.4 - rate) / 0.25) : rate > 0.6 ? Math.max(0, 1 - (rate - 0.6) / 0.25) : 1);
    const plays = db.prepare(`SELECT environment_id AS environmentId, rollout, hinted, "return", error FROM episodes WHERE run_id = ?`).all(runId) as (StoredPlay & { error: string | null })[];
    for (const [regeneration, scoredIn, trainedIn] of [[0, 3, 4], [4, 7, null]] as const) {
      const games = listEnvironments(db, { runId }).filter((env) => env.valid && env.source === "designer" && env.iteration === regeneration);
      const blends = games.map((env) => {
        const own = plays.filter((play) => play.environmentId === env.id);
        const unhinted = (rollout: number) => own.filter((play) => !play.hinted && play.rollout === rollout).map((play) => play.return);
        const regret = mean(own.filter((play) => play.hinted).map((play) => play.return)) - mean(unhinted(regeneration));
        const window = [0, 1, 2, 3].flatMap((offset) => unhinted(regeneration + offset));
        return 0.4 * Math.min(1, Math.max(0, regret / 0.15)) + 0.6 * plateau(mean(window));
      });
      // Nothing is masked (a floored blend is never negative); every game here has one skill.
      expect(new Set(games.map((env) => env.skill)).size).toBe(1);
      // The scale: agent samples of the step / designer samples x interval 4, capped at 50.
      const agentSamples = plays.filter((play) => play.rollout === scoredIn && !play.hinted && play.error === null).length;
      const scale = Math.min(50, (agentSamples / games.length) * 4);
      expect(scale).toBe(games.length === 2 ? 12 : 24);
      // The stored advantage counts the scoring rollout (r + 3); the trained line the step that trains it (r + 4), as the
      // reference's compute_env_reward_scale: its actor samples upsampled to the batch (6) minus its new designer samples.
      const played = trainedIn === null ? 0 : plays.filter((play) => play.rollout === trainedIn && !play.hinted && play.error === null).length;
      const fresh = listEnvironments(db, { runId }).filter((env) => env.valid && env.source === "designer" && env.iteration === trainedIn).length;
      const trainScale = trainedIn === null ? null : Math.min(50, (Math.max(played, 6 - fresh) / games.length) * 4);
      const lines = trainedIn === null ? [] : batches.get(trainedIn)!.filter((line) => line.role === "designer");
      if (trainedIn !== null) expect(lines.map((line) => line.ref.environmentId).sort()).toEqual(games.map((env) => env.id).sort());
      for (const [i, env] of games.entries()) {
        const line = lines.find((candidate) => candidate.ref.environmentId === env.id);
        expect(getDesignerAdvantage(db, env.id)!.advantage, `game ${env.id}`).toBeCloseTo((blends[i]! - mean(blends)) * scale, 12);
        if (line) expect(line.advantage, `game ${env.id}`).toBeCloseTo((blends[i]! - mean(blends)) * trainScale!, 12);
        expect(getDesignerAdvantage(db, env.id)!.designerReward, `game ${env.id}`).toBeCloseTo(blends[i]!, 12);
      }
      // The blends must differ somewhere, or a zero advantage would pass whatever the scale.
      if (regeneration === 0) expect(Math.max(...blends) - Math.min(...blends)).toBeGreaterThan(0);
    }
  });

  it("nothing is trained twice, and every play records the adapter it was sampled with", () => {
    const seen = [...batches.values()].flat().map((line) => `${line.role}:${line.ref.episodeId ?? line.ref.environmentId}`);
    expect(new Set(seen).size).toBe(seen.length);
    const plays = db.prepare(`SELECT rollout, adapter FROM episodes WHERE run_id = ? AND hinted = 0`).all(runId) as StoredPlay[];
    // Rollout k > 0 samples with the adapter of the round after rollout k - 1.
    for (const play of plays) expect(play.adapter).toBe(play.rollout === 0 ? null : `run-${runId}-r${play.rollout - 1}.gguf`);
  });

  it("stopped between rounds and resumed, the run trains exactly the same batches", async () => {
    const resumedConfig = configFor("resumed");
    const resumedDb = openDatabase(resumedConfig.db);
    try {
      const resumedRun = createRun(resumedDb, { config: resumedConfig, seed: resumedConfig.seed }).id;
      const resumed = new Map<number, BatchLine[]>();
      expect(await runOnce(resumedConfig, resumedDb, resumedRun, resumed, 4)).toBe("interrupted");
      expect([...resumed.keys()]).toEqual([0, 1, 2, 3, 4]);
      expect(await runOnce(resumedConfig, resumedDb, resumedRun, resumed)).toBe("completed");
      // Database ids and adapter names are per workspace: compare what is trained.
      const shape = (lines: BatchLine[]) => lines.map((line) => [line.role, line.tokens, line.mask, line.behaviorLogprobs, line.advantage]);
      expect([...resumed.keys()]).toEqual([...batches.keys()]);
      for (const [round, lines] of batches) expect(shape(resumed.get(round)!), `round ${round}`).toEqual(shape(lines));
    } finally {
      resumedDb.close();
    }
  }, 240_000);
});

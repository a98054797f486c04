import { availableParallelism } from "node:os";
import type { ValidationReport } from "../../shared/environment.js";
import type { ChatMessage } from "../../shared/llm.js";
import type { RunConfig } from "../../shared/runConfig.js";
import type { Corpus } from "../corpus/Corpus.js";
import { countWords, truncateDocument } from "../corpus/truncateWords.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { PromptTooLongError } from "../llm/PromptTooLongError.js";
import { playKey, type PlayTrace } from "../rollout/PlayTrace.js";
import { runPlays, type PlaySpec } from "../rollout/runPlays.js";
import { repairFStringBraces } from "../sandbox/repairFStringBraces.js";
import type { EnvSession } from "../sandbox/EnvSession.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import type { LibraryHost } from "../library/LibraryHost.js";
import { LibraryEnvironments } from "../library/LibraryEnvironments.js";
import { parseLibraryProblem } from "../library/LibraryProblem.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { upsertDocument } from "../store/queries/documents.js";
import { upsertEnvStats } from "../store/queries/envStats.js";
import { listEnvSetMembers } from "../store/queries/envSets.js";
import { findAttempt, getEnvironment, insertEnvironment, setEnvironmentNovelty, type Environment } from "../store/queries/environments.js";
import { findEpisode, insertEpisodeWithTurns } from "../store/queries/episodes.js";
import { getHint, insertHint } from "../store/queries/hints.js";
import { completeIteration, startIteration } from "../store/queries/iterations.js";
import { listMemory } from "../store/queries/memory.js";
import { putMetrics } from "../store/queries/metrics.js";
import { sampledTokensOf, setSampledTokens } from "../store/queries/sampledTokens.js";
import { getRun, setIterationsCompleted } from "../store/queries/runs.js";
import { hungBefore, putRunNote, setEpisodeRollout } from "../store/queries/schedule.js";
import { transaction } from "../store/transaction.js";
import { deriveSeed, seededRandom } from "../util/seededRandom.js";
import { validateEnvironment } from "../validator/validateEnvironment.js";
import { Semaphore } from "../util/Semaphore.js";
import { validationsAtOnce } from "./validationsAtOnce.js";
import { designerMessages, repairMessages } from "./designerPrompt.js";
import { drawFixedPool } from "./drawFixedPool.js";
import { extractPythonCode } from "./extractCode.js";
import { fitDesignerPrompt } from "./fitDesignerPrompt.js";
import { CanaryLead, type FollowingSession } from "./CanaryLead.js";
import { iterationMetrics } from "./iterationMetrics.js";
import { judgeNovelty, type NoveltyReference } from "./judgeNovelty.js";
import type { LoopEvent } from "./LoopEvent.js";
import { batchScoredAt, isRegeneration, playsPerGame, regenerationInterval, regenerationOf, slotSkill, unhintedPlayIndex } from "./rolloutSchedule.js";
import { batchGames, scoreRegeneration, storeInterimStats, validAttempt } from "./scoreRegeneration.js";
import { selectMemoryReferences, type MemoryCandidate } from "./selectMemoryReferences.js";
import type { TrainingStep } from "./TrainingStep.js";
import { playsInFlight } from "./playsInFlight.js";
import { WorkGraph, type WorkUnit } from "./WorkGraph.js";
import { screenHint, writeHint } from "./writeHint.js";

export interface SelfPlayDeps {
  db: WritableDb;
  backend: LlmBackend;
  pool: SandboxPool;
  /** null for the "no corpus" ablation. */
  corpus: Corpus | null;
  /** Aborting stops the loop at the next safe point (nothing half-written is kept). */
  signal?: AbortSignal;
  onEvent?: (event: LoopEvent) => void;
  /** Training inside the run: asked after every completed iteration. Absent: the run only collects experience. */
  training?: TrainingStep;
  /** Plays in flight at once. Defaults to `playsInFlight` of the backend's parallelism (its requests, and half as many again getting ready). */
  playConcurrency?: number;
  /**
   * Games validated at once; the others wait for a turn, and their deadline starts with it. A
   * validation keeps about a core busy (the engine and a sandbox child taking turns), so games
   * designed at the same moment, validated all at once, all end last; a few at a time, the first
   * are valid and their plays fill the server while the rest validate. Defaults to
   * `validationsAtOnce` of the machine's cores and the backend's parallelism.
   */
  validationConcurrency?: number;
  /** Told each moment of every play (benchmarks build the server's timeline from them). Defaults to none. */
  trace?: PlayTrace;
  /** The installed environment library of a `designer.kind: "library"` run (the RLVE baseline). */
  library?: LibraryHost;
  /** The hint writer's wait after its n-th failed call. Defaults to the reference's 2^n s. */
  hintBackoffMs?: (failure: number) => number;
}

interface EnvironmentProbe {
  observation: string;
  hint: string | null;
  solution: string;
  /** Why the probe failed (the environment raised, hung or answered wrongly), else null. */
  failure: string | null;
}

/** What one slot of an iteration knows as its units finish. */
interface SlotState {
  slot: number;
  /** The slot's valid environment, once designed (or found stored). */
  env: Environment | null;
  /** The last stored attempt (a repair turn continues from it). */
  last: Environment | null;
  hint: string | null;
  /** A play of the game hit the deadline this rollout: the rest of its plays are skipped (the reference's hung-game blacklist). */
  hung: boolean;
  /** Unhinted plays of the slot's game this rollout (the canary included). */
  plays: number;
  /** The game's plays were announced to the sandbox pool (at its canary). */
  announced: boolean;
  /** The canary leading the game's other plays this rollout (`canary`), else null. */
  lead: CanaryLead | null;
  /** The canary play, once started: its unit ends at the canary's reset, `canaryEnd` waits for the rest. */
  canaryPlay: Promise<void> | null;
}

/** The memory of a batch, read once when the batch starts: every designer call of the batch sees the same. */
interface MemorySnapshot {
  candidates: MemoryCandidate[];
}

type UnitKind = "design" | "hint" | "play";

/** The seed used to compare first observations in the novelty check. */
const NOVELTY_PROBE_SEED = 0;

/**
 * The SPADE loop for one stored run, on the reference's schedule: an iteration is one rollout;
 * every `regenerationInterval` rollouts a batch of games is designed (all slots at once) and the
 * rollouts in between replay it; the designer's reward for a batch is computed after the proposer
 * delay. The work of an iteration is a graph of units (designer attempts, hints, plays) run as
 * their inputs are ready; every unit is looked up before it is done and stored when it is done,
 * and every draw is seeded from the run seed and the unit's coordinates (never from timing), so a
 * run stores the same results at any concurrency and resumes where it stopped after a kill.
 */
export class SelfPlayLoop {
  private readonly probeCache = new Map<number, Promise<EnvironmentProbe>>();
  /**
   * Every unit of the running graph has started: no new play will come, so the rollout's end waits
   * only on the plays in flight. Their requests then go in by the turns a play may still need
   * (a first turn before a second: the longest chain first), where before, a later turn went first.
   */
  private lastWave = false;
  /** Validations in flight (`validationConcurrency`). */
  private readonly validations: Semaphore;
  private libraryEnvironments: LibraryEnvironments | null = null;

  constructor(
    private readonly runId: number,
    private readonly config: RunConfig,
    private readonly deps: SelfPlayDeps,
  ) {
    this.validations = new Semaphore(Math.max(1, deps.validationConcurrency ?? validationsAtOnce(availableParallelism(), deps.backend.parallelism)));
  }

  /** Runs the remaining iterations. Resolves "completed", or "interrupted" when the signal fired. */
  async run(): Promise<"completed" | "interrupted"> {
    const { db } = this.deps;
    const run = getRun(db, this.runId);
    if (!run) throw new Error(`run ${this.runId} does not exist in this workspace`);
    // A run killed between an iteration and its training round takes the round up again first.
    if (run.iterationsCompleted > 0 && !(await this.train(run.iterationsCompleted - 1))) return "interrupted";
    for (let iteration = run.iterationsCompleted; iteration < this.config.iterations; iteration++) {
      if (this.deps.signal?.aborted) return "interrupted";
      const started = startIteration(db, this.runId, iteration);
      this.emit({ type: "iterationStarted", runId: this.runId, iteration, iterations: this.config.iterations });
      this.noteEmptyReplay(iteration);
      if (!(await this.runIteration(iteration))) return "interrupted";
      this.completeIteration(iteration, started.startedAt);
      if (!(await this.train(iteration))) return "interrupted";
    }
    return "completed";
  }

  /** A replay rollout whose batch has no valid game plays nothing: said and stored, not left to look like a stall. */
  private noteEmptyReplay(iteration: number): void {
    const regeneration = regenerationOf(iteration, this.config);
    if (regeneration === iteration || batchGames(this.deps.db, this.runId, regeneration, this.config).length > 0) return;
    const next = regeneration + regenerationInterval(this.config);
    const text = `rollout ${iteration} replays the batch designed in rollout ${regeneration}, which has no valid game: nothing to play ${next < this.config.iterations ? `until rollout ${next} designs again` : "for the rest of the run"} (regenerationInterval ${regenerationInterval(this.config)})`;
    putRunNote(this.deps.db, this.runId, iteration, "empty replay", text);
    this.emit({ type: "note", runId: this.runId, iteration, kind: "empty replay", text });
  }

  /** The training round due after `iteration`, if the run trains. False when interrupted. */
  private async train(iteration: number): Promise<boolean> {
    if (!this.deps.training) return true;
    return (await this.deps.training.afterIteration(iteration, this.deps.signal)) === "done";
  }

  /** Statistics, the delayed designer reward of a batch whose delay has passed, memory and metrics: one transaction. */
  private completeIteration(iteration: number, startedAt: number): void {
    const { db } = this.deps;
    const scored = batchScoredAt(iteration, this.config);
    const outcome = transaction(db, () => {
      const result = scored === null ? null : scoreRegeneration(db, this.runId, scored, this.config, (env) => env.novelty !== "duplicate");
      if (scored === null) storeInterimStats(db, this.runId, iteration, this.config);
      const metrics = {
        ...iterationMetrics(db, this.runId, iteration, this.config, Date.now() - startedAt),
        regeneration: isRegeneration(iteration, this.config) ? 1 : 0,
        designerRewardsScored: result === null ? null : result.scores.filter((score) => score.designerReward !== null).length,
        designerMaskedRate: result === null || result.scores.length === 0 ? null : result.scores.filter((score) => score.masked).length / result.scores.length,
        learningPotentialGap: result?.learningPotentialGap ?? null,
        designerRewardScale: result === null || this.config.designer.kind !== "llm" ? null : result.scale,
      };
      putMetrics(db, this.runId, iteration, metrics);
      completeIteration(db, this.runId, iteration);
      setIterationsCompleted(db, this.runId, iteration + 1);
      return { result, metrics };
    });
    for (const score of outcome.result?.scores ?? []) {
      this.emit({ type: "environmentScored", runId: this.runId, environmentId: score.environmentId, winRate: score.winRate, regret: score.regret, designerReward: score.designerReward ?? 0 });
    }
    this.emit({ type: "iterationCompleted", runId: this.runId, iteration, metrics: numericOnly(outcome.metrics) });
  }

  /**
   * Builds the iteration's work graph and runs it. False when interrupted. A game's validation,
   * hint and plays start as soon as it is designed. With plays following the actor batch (the count
   * of valid games sizes them, as in the reference), the plays beyond the fewest a game can get are
   * added once every slot is designed.
   */
  private async runIteration(iteration: number): Promise<boolean> {
    const regeneration = regenerationOf(iteration, this.config);
    const generating = regeneration === iteration;
    const memory = generating ? this.memorySnapshot() : null;
    const attempts = this.config.designer.kind === "llm" ? this.config.designer.attempts : 1;
    const states: SlotState[] = [];
    const design = new WorkGraph<UnitKind>();
    for (let slot = 0; slot < this.config.envsPerIteration; slot++) {
      const state: SlotState = { slot, env: null, last: null, hint: null, hung: false, plays: this.config.plays ?? 0, announced: false, lead: this.config.canary ? new CanaryLead() : null, canaryPlay: null };
      states.push(state);
      for (let attempt = 0; attempt < attempts; attempt++) {
        const after = attempt === 0 ? [] : [`design:${slot}:${attempt - 1}`];
        design.add(this.unit(`design:${slot}:${attempt}`, "design", after, () => (generating ? this.designAttempt(iteration, state, attempt, memory!) : this.findGame(iteration, regeneration, state, attempt))));
      }
    }
    const designed = (slot: number) => [`design:${slot}:${attempts - 1}`];
    // With plays following the actor batch, a game's count is known once every slot is designed.
    // Until then each game counts the plays it gets with every slot valid (the fewest it can get),
    // so the games designed first validate and play while the designer's stragglers finish; the
    // "count" unit adds the rest once the count is known. A replay's games are all found at once.
    const fewest = this.config.plays ?? playsPerGame(this.config, this.config.envsPerIteration);
    for (const state of states) state.plays = fewest;
    const play = design;
    const addPlays = (state: SlotState, from: number, to: number) => {
      for (let index = Math.max(from, this.config.canary ? 1 : 0); index < to; index++) {
        play.add(this.unit(`play:${state.slot}:${index}`, "play", [`canary:${state.slot}`], () => this.play(iteration, regeneration, state, false, index), `game:${state.slot}`));
      }
    };
    if (this.config.plays === null) {
      play.add(this.unit("count", "design", states.map((state) => designed(state.slot)[0]!), async () => {
        const plays = playsPerGame(this.config, states.filter((state) => state.env !== null).length);
        for (const state of states) {
          const more = plays - state.plays;
          state.plays = plays;
          if (state.announced && state.env?.code && !state.hung) this.planPlays(state.env.code, more * (1 + this.replaysLeft(iteration)), true);
          addPlays(state, fewest, plays);
        }
      }));
    }
    for (const state of states) {
      const { slot } = state;
      play.add(this.unit(`hint:${slot}`, "hint", designed(slot), () => (generating ? this.prepareHint(iteration, state, memory!) : Promise.resolve())));
      const canary = `canary:${slot}`;
      play.add(this.unit(canary, "play", generating || this.config.plays !== null ? designed(slot) : ["count"], () => this.startCanary(iteration, regeneration, state), `game:${slot}`));
      play.add(this.unit(`canaryEnd:${slot}`, "play", [canary], () => state.canaryPlay ?? Promise.resolve(), `game:${slot}`));
      addPlays(state, 0, fewest);
      if (generating) {
        for (let index = 0; index < this.config.hintPlays; index++) {
          play.add(this.unit(`hinted:${slot}:${index}`, "play", [canary, `hint:${slot}`], () => this.play(iteration, regeneration, state, true, index), `game:${slot}`));
        }
      }
    }
    try {
      return await this.runGraph(play);
    } finally {
      // The rollout is over: its games keep their processes for the batch's replay rollouts still to come (none after the last).
      for (const state of states) if (state.env?.code) this.planPlays(state.env.code, this.replaysLeft(iteration) * state.plays);
    }
  }

  /** Rollouts after `iteration` that replay its batch (0 in the batch's last rollout or the run's last). */
  private replaysLeft(iteration: number): number {
    const regeneration = regenerationOf(iteration, this.config);
    return Math.min(regeneration + regenerationInterval(this.config), this.config.iterations) - 1 - iteration;
  }

  /** Tells the sandbox pool how many plays of a game are still to come (or, `more`, how many more), library problems aside (they play elsewhere). */
  private planPlays(code: string, count: number, more = false): void {
    if (this.config.designer.kind === "library") return;
    this.deps.pool.planPlays(code, count + (more ? this.deps.pool.playsToCome(code) : 0));
  }

  /** Runs a graph of the iteration's units. False when interrupted. */
  private async runGraph(graph: WorkGraph<UnitKind>): Promise<boolean> {
    let started = 0;
    this.lastWave = false;
    const onChange = ({ phase }: { phase: "started" | "finished" }) => {
      if (phase === "started") started++;
      this.lastWave = started >= graph.size;
    };
    try {
      await graph.run({ limits: { play: Math.max(1, this.deps.playConcurrency ?? playsInFlight(this.deps.backend.parallelism)) }, signal: this.deps.signal, onChange });
    } catch (error) {
      if (this.deps.signal?.aborted) return false;
      throw error;
    }
    return !this.deps.signal?.aborted;
  }

  private unit(id: string, kind: UnitKind, after: string[], run: () => Promise<void>, group?: string): WorkUnit<UnitKind> {
    return { id, kind, after, ...(group === undefined ? {} : { group }), run: () => (this.deps.signal?.aborted ? Promise.resolve() : run()) };
  }

  private memorySnapshot(): MemorySnapshot {
    const { db } = this.deps;
    const entries = listMemory(db, this.runId, { inMemoryOnly: true });
    const candidates = entries.map((entry) => ({
      environmentId: entry.environmentId,
      skill: entry.skill,
      className: getEnvironment(db, entry.environmentId)?.className ?? null,
      codeExcerpt: entry.codeExcerpt ?? "",
      winRate: entry.winRate ?? 0,
      regret: entry.regret ?? 0,
    }));
    return { candidates };
  }

  /** A replayed batch: the slot's game is its valid attempt from the regeneration. */
  /**
   * A replay rollout's game of the slot. A game that hung (a play past the deadline in an earlier
   * rollout) is dropped from the selection, as the reference leaves its hung-game blacklist out of
   * `collect_trajectories`; with plays following the actor batch the other games' plays are recomputed.
   */
  private async findGame(iteration: number, regeneration: number, state: SlotState, attempt: number): Promise<void> {
    if (attempt > 0) return;
    const env = validAttempt(this.deps.db, this.runId, regeneration, state.slot, this.config.designer.kind === "llm" ? this.config.designer.attempts : 1);
    state.env = env !== null && hungBefore(this.deps.db, env.id, iteration) ? null : env;
  }

  private skillAndDifficulty(iteration: number, slot: number): { skill: string; difficulty: string } {
    const skill = slotSkill(iteration, slot, this.config);
    const { randomDifficulty, difficulties, difficulty } = this.config.designer;
    if (!randomDifficulty) return { skill, difficulty };
    return { skill, difficulty: difficulties[Math.floor(seededRandom(this.config.seed, "difficulty", iteration, slot)() * difficulties.length)]! };
  }

  /** A fresh grounding document for every attempt. */
  private async groundingDocument(iteration: number, slot: number, attempt: number): Promise<{ id: string; title: string | null; text: string } | null> {
    const { corpus } = this.deps;
    if (!corpus || !this.config.corpus) return null;
    const document = await corpus.sample(seededRandom(this.config.seed, "document", iteration, slot, attempt));
    return { id: document.id, title: document.title ?? null, text: truncateDocument(document.text, this.config.corpus.maxWords) };
  }

  /** One designer attempt of a slot: an independent sample (or a repair turn), validated and stored, valid or not. */
  private async designAttempt(iteration: number, state: SlotState, attempt: number, memory: MemorySnapshot): Promise<void> {
    if (state.env) return;
    if (this.config.designer.kind === "fixed") return this.drawFixed(iteration, state);
    if (this.config.designer.kind === "library") return this.drawLibrary(iteration, state);
    const { db, backend } = this.deps;
    const stored = findAttempt(db, this.runId, iteration, state.slot, attempt);
    if (stored) {
      state.last = stored;
      if (stored.valid) state.env = stored;
      return;
    }
    const { skill, difficulty } = this.skillAndDifficulty(iteration, state.slot);
    const repairing = this.config.designer.repair && state.last !== null;
    const previous = state.last;
    let document: { id: string; title: string | null; text: string } | null = null;
    let messages: ChatMessage[];
    if (repairing) {
      messages = repairMessages(previous!.prompt ?? [], previous!.rawReply ?? "", previous!.validationError ?? "invalid");
    } else {
      document = await this.groundingDocument(iteration, state.slot, attempt);
      const references = this.config.memory.enabled
        ? selectMemoryReferences(memory.candidates, skill, this.config.memory.references, seededRandom(this.config.seed, "memory", iteration, state.slot, attempt))
        : null;
      const setting = this.config.designer.toolUse ? "toolUse" : "games";
      const build = (text: string | null) =>
        designerMessages({ document: text, memory: references, skill, difficulty, setting, maxTurns: this.config.maxTurns, random: seededRandom(this.config.seed, "designer prompt", iteration, state.slot, attempt) });
      const fitted = await fitDesignerPrompt(backend, build, document?.text ?? null, this.config.designer.maxTokens);
      messages = fitted.messages;
      if (document && fitted.trimmed) {
        document = { ...document, text: fitted.document ?? "" };
        const text = `grounding document trimmed from ${fitted.trimmed.fromWords} to ${fitted.trimmed.toWords} words so the designer prompt fits ${fitted.trimmed.budgetTokens} tokens (backend.contextSize ${backend.contextSize} less room for the reply)`;
        putRunNote(db, this.runId, iteration, "document trimmed", text);
        this.emit({ type: "note", runId: this.runId, iteration, kind: "document trimmed", text });
      }
      if (document) upsertDocument(db, { id: document.id, corpus: this.config.corpus!.path, title: document.title, text: document.text, words: countWords(document.text) });
    }
    this.phase(iteration, state.slot, "designing", `attempt ${attempt + 1}`);
    let replyText = "";
    let tokens = 0;
    let sampled: ReturnType<typeof sampledTokensOf> | null = null;
    let validation: ValidationReport;
    let code: string | null = null;
    try {
      const reply = await backend.chat({
        messages,
        sampling: { temperature: this.config.designer.temperature, topP: this.config.designer.topP, topK: this.config.designer.topK, maxTokens: this.config.designer.maxTokens, seed: deriveSeed(this.config.seed, "designer", iteration, state.slot, attempt) },
        signal: this.deps.signal,
        thinking: this.config.designer.thinking,
      });
      replyText = reply.text;
      tokens = reply.promptTokens + reply.completionTokens;
      sampled = sampledTokensOf(reply);
      code = extractPythonCode(reply.text);
      const validate = (source: string) => this.validate(iteration, state.slot, source);
      validation = code === null ? noCodeReport() : await validate(code);
      // The reference's f-string brace repair changes only code with a syntax error: run it (in the
      // sandbox) only then, and keep the repaired code if it differs.
      if (code !== null && this.config.designer.repairBraces && !validation.valid && /syntax/i.test(validation.error ?? "")) {
        const repaired = await repairFStringBraces(this.deps.pool, code);
        if (repaired !== code) {
          code = repaired;
          validation = await validate(code);
        }
      }
    } catch (error) {
      if (this.deps.signal?.aborted) return;
      const tooLong = asPromptTooLong(error);
      if (!tooLong) throw error;
      validation = failedReport("prompt_fits", tooLong.message);
    }
    if (this.deps.signal?.aborted) return;
    const id = transaction(db, () => {
      const envId = insertEnvironment(db, {
        runId: this.runId,
        iteration,
        slot: state.slot,
        attempt,
        parentId: repairing ? previous!.id : null,
        source: repairing ? "repair" : "designer",
        documentId: document?.id ?? (repairing ? previous!.documentId : null),
        skill,
        difficulty,
        prompt: messages,
        rawReply: replyText,
        code,
        className: validation.className,
        valid: validation.valid,
        validation,
        validationError: validation.error,
        tokens,
        adapter: backend.adapter,
      });
      if (sampled) setSampledTokens(db, "environments", envId, sampled);
      if (!validation.valid) {
        upsertEnvStats(db, { environmentId: envId, plays: 0, hintPlays: 0, designerReward: this.config.reward.invalidReward, rewardKind: this.config.reward.kind });
      }
      return envId;
    });
    state.last = getEnvironment(db, id)!;
    if (validation.valid) state.env = state.last;
    this.emit({ type: "environmentAdded", runId: this.runId, iteration, slot: state.slot, environmentId: id, valid: validation.valid, className: validation.className });
  }

  /** Validates a slot's game when its turn comes (`validationConcurrency`): SPADE's rule, then this project's checks (`validateEnvironment`). */
  private async validate(iteration: number, slot: number, code: string): Promise<ValidationReport> {
    if (!(await this.validations.acquire(this.deps.signal))) return failedReport("validation", "the run was paused or stopped before the game was validated");
    try {
      this.phase(iteration, slot, "validating");
      return await validateEnvironment(this.deps.pool, code, { timeoutMs: this.config.sandbox.validationTimeoutMs, strict: this.config.validator.strict, maxTurns: this.config.maxTurns });
    } finally {
      this.validations.release();
    }
  }

  /** A baseline slot already drawn (a resumed run): the stored draw, not a new one. */
  private takeStoredDraw(iteration: number, state: SlotState): boolean {
    const stored = findAttempt(this.deps.db, this.runId, iteration, state.slot, 0);
    if (!stored) return false;
    state.last = stored;
    if (stored.valid) state.env = stored;
    return true;
  }

  /** Stores a baseline slot's draw (a pool member or a library problem) as its one attempt, in one transaction. */
  private storeDraw(iteration: number, state: SlotState, drawn: { skill: string | null; code: string | null; validation: ValidationReport; hint: string | null }): void {
    const { db } = this.deps;
    const { validation } = drawn;
    const id = transaction(db, () => {
      const envId = insertEnvironment(db, {
        runId: this.runId, iteration, slot: state.slot, attempt: 0, source: "fixed", skill: drawn.skill, code: drawn.code,
        className: validation.className, valid: validation.valid, validation, validationError: validation.error,
      });
      if (drawn.hint !== null) insertHint(db, { environmentId: envId, source: "import", text: drawn.hint });
      if (!validation.valid) upsertEnvStats(db, { environmentId: envId, plays: 0, hintPlays: 0, designerReward: null, rewardKind: this.config.reward.kind });
      return envId;
    });
    state.last = getEnvironment(db, id)!;
    if (validation.valid) state.env = state.last;
    this.emit({ type: "environmentAdded", runId: this.runId, iteration, slot: state.slot, environmentId: id, valid: validation.valid, className: validation.className });
  }

  /** The fixed-pool baseline: no designer calls; the rollout's games dealt from the set without replacement. */
  private async drawFixed(iteration: number, state: SlotState): Promise<void> {
    if (this.takeStoredDraw(iteration, state)) return;
    const members = listEnvSetMembers(this.deps.db, this.config.designer.set!);
    if (members.length === 0) throw new Error(`environment set "${this.config.designer.set}" is empty or does not exist`);
    const member = members[drawFixedPool(this.config.seed, members.length, this.config.envsPerIteration, iteration)[state.slot]!]!;
    const validation = await this.validate(iteration, state.slot, member.code);
    if (this.deps.signal?.aborted) return;
    this.storeDraw(iteration, state, { skill: member.skill, code: member.code, validation, hint: member.hint });
  }

  /** A library baseline: the rollout's problems drawn from the installed library at the controller's difficulties. */
  private async drawLibrary(iteration: number, state: SlotState): Promise<void> {
    if (this.takeStoredDraw(iteration, state)) return;
    if (!this.deps.library) throw new Error('designer.kind "library": the run was started without its library');
    this.libraryEnvironments ??= new LibraryEnvironments(this.deps.db, this.runId, this.config, this.deps.library);
    const drawn = await this.libraryEnvironments.draw(iteration, state.slot);
    if (this.deps.signal?.aborted) return;
    this.storeDraw(iteration, state, { ...drawn, hint: null });
  }

  /** A session on a stored environment: its code in the sandbox, or a library problem in the library's worker. */
  private openSession(code: string, planned = false): Promise<EnvSession> {
    const problem = this.config.designer.kind === "library" ? parseLibraryProblem(code) : null;
    if (problem && this.deps.library) return this.deps.library.open(problem, { stepTimeoutMs: this.config.sandbox.stepTimeoutMs });
    return this.deps.pool.open(code, { stepTimeoutMs: this.config.sandbox.stepTimeoutMs, planned, maxTurns: this.config.maxTurns });
  }

  /**
   * One session per environment answers what the loop asks before playing: the first observation
   * for the novelty probe seed, the environment's own hint, and its reference solution.
   */
  private probe(envId: number, code: string): Promise<EnvironmentProbe> {
    let cached = this.probeCache.get(envId);
    if (!cached) {
      // Environment code: whatever it does (raise, hang, answer the wrong type) is this
      // environment's recorded failure, never the run's.
      cached = (async (): Promise<EnvironmentProbe> => {
        let where = "open";
        try {
          const session = await this.openSession(code);
          try {
            where = `reset(seed=${NOVELTY_PROBE_SEED})`;
            const { observation } = await session.reset(NOVELTY_PROBE_SEED);
            where = "hint()";
            const hint = await session.hint();
            where = "solution()";
            return { observation, hint, solution: await session.solution(), failure: null };
          } finally {
            await session.close();
          }
        } catch (error) {
          if (this.deps.signal?.aborted) throw error;
          return { observation: "", hint: null, solution: "", failure: `the probe of environment ${envId} failed at ${where}: ${error instanceof Error ? error.message : String(error)}` };
        }
      })();
      this.probeCache.set(envId, cached);
    }
    return cached;
  }

  /** Deviation `memory.novelty`: a near-duplicate check against memory as it stood when the batch started. */
  private async checkNovelty(env: Environment, memory: MemorySnapshot): Promise<void> {
    const { db } = this.deps;
    if (env.novelty !== null || !this.config.memory.novelty) return;
    const references: NoveltyReference[] = [];
    for (const candidate of memory.candidates) {
      const stored = getEnvironment(db, candidate.environmentId);
      if (!stored?.code || stored.id === env.id) continue;
      const observation = await this.probe(stored.id, stored.code).then((probe) => probe.observation, () => "");
      references.push({ environmentId: stored.id, code: stored.code, observation });
    }
    const observation = await this.probe(env.id, env.code!).then((probe) => probe.observation, () => "");
    const verdict = judgeNovelty({ code: env.code!, observation }, references, this.config.memory);
    setEnvironmentNovelty(db, env.id, verdict.novel ? "novel" : "duplicate", verdict.duplicateOf);
    env.novelty = verdict.novel ? "novel" : "duplicate";
  }

  /** The novelty check (when on) and the hint for the slot's hinted plays, stored once. */
  private async prepareHint(iteration: number, state: SlotState, memory: MemorySnapshot): Promise<void> {
    const env = state.env;
    if (!env) return;
    await this.checkNovelty(env, memory);
    if (this.config.hintPlays === 0) return;
    this.phase(iteration, state.slot, "hinting");
    state.hint = await this.hintFor(env);
  }

  private async hintFor(env: Environment): Promise<string | null> {
    const { db, backend } = this.deps;
    const stored = getHint(db, env.id);
    if (stored) return stored.text === "" ? null : stored.text; // an empty writer hint: every reply was empty, no hinted plays
    const { hint: own, solution, failure } = await this.probe(env.id, env.code!);
    if (failure !== null) {
      putRunNote(db, this.runId, env.iteration ?? 0, `probe failed ${env.id}`, `${failure}; the hint writer's hint is used`);
      this.emit({ type: "note", runId: this.runId, iteration: env.iteration ?? 0, kind: "probe failed", text: failure });
    }
    // Deviation `hint.useEnvHint`: the environment's own hint. An environment must not buy regret
    // with it: it is used only when the environment's own solution verifiably solved the game in
    // validation (so the leak check compares with the true answer) and the hint does not reveal
    // that solution; otherwise the hint writer's hint is used. A fixed pool has no designer side
    // at all, so its environments' own hints come first there.
    if ((this.config.hint.useEnvHint || this.config.designer.kind === "fixed") && own !== null && own.trim() !== "") {
      const verified = env.validation?.solutionPlay?.solves === true;
      const screened = screenHint(own.trim(), solution);
      if (verified && !screened.leaked) {
        insertHint(db, { environmentId: env.id, source: "env", text: screened.text });
        return screened.text;
      }
      const why = verified ? "it reveals the solution" : `its solution() does not verifiably solve the game (${env.validation?.solutionPlay?.detail ?? "not played in validation"})`;
      putRunNote(db, this.runId, env.iteration ?? 0, `own hint refused ${env.id}`, `the own hint() of environment ${env.id} is not used: ${why}; the hint writer's hint is used`);
    }
    try {
      const { temperature, topP, topK, maxTokens } = this.config.hint;
      const sampling = { temperature, topP, topK, maxTokens, seed: deriveSeed(this.config.seed, "hint", env.iteration ?? 0, env.slot ?? 0, env.attempt ?? 0) };
      const adapter = backend.adapter;
      const written = await writeHint(backend, env.code!, solution, sampling, {
        setting: this.config.designer.toolUse ? "toolUse" : "games",
        leakCheck: this.config.hint.leakCheck,
        thinking: this.config.hint.thinking,
        isFatal: (error) => this.deps.signal?.aborted === true || asPromptTooLong(error) !== null,
        ...(this.deps.hintBackoffMs ? { backoffMs: this.deps.hintBackoffMs } : {}),
      });
      if (this.deps.signal?.aborted) return null;
      const emptyNote = written.error !== null
        ? `no hint for environment ${env.id}: the hint writer failed ${written.calls} times (${written.error}); its hinted plays are skipped and its regret is 0`
        : `no hint for environment ${env.id}: the hint writer's ${written.calls} replies were empty; its hinted plays are skipped and its regret is 0`;
      transaction(db, () => {
        const hintId = insertHint(db, { environmentId: env.id, source: "writer", text: written.text, prompt: written.prompt, rawReply: written.rawReply, adapter });
        const sampled = written.result === null ? null : sampledTokensOf(written.result);
        if (sampled) setSampledTokens(db, "hints", hintId, sampled);
        if (written.empty) putRunNote(db, this.runId, env.iteration ?? 0, `hint empty ${env.id}`, emptyNote);
      });
      if (!written.empty) return written.text;
      this.emit({ type: "note", runId: this.runId, iteration: env.iteration ?? 0, kind: "hint empty", text: emptyNote });
      return null;
    } catch (error) {
      const tooLong = asPromptTooLong(error);
      if (this.deps.signal?.aborted || !tooLong) throw error;
      const text = `no hint for environment ${env.id}: ${tooLong.message}; its hinted plays are skipped`;
      putRunNote(db, this.runId, env.iteration ?? 0, `hint skipped ${env.id}`, text);
      this.emit({ type: "note", runId: this.runId, iteration: env.iteration ?? 0, kind: "hint skipped", text });
      return null;
    }
  }

  private spec(regeneration: number, slot: number, hinted: boolean, playIndex: number, canary: boolean): PlaySpec {
    return { hinted, playIndex, canary, seed: deriveSeed(this.config.seed, "play", regeneration, slot, playIndex, hinted ? 1 : 0, canary ? 1 : 0) };
  }

  /**
   * The canary: the rollout's first unhinted play, which leads the game's other plays (`CanaryLead`);
   * a time-out skips the rest of the game's plays this rollout. The game's plays in this rollout and
   * in the batch's replay rollouts still to come are announced to the sandbox pool first, so its
   * processes are kept (across rollouts) and the ones its plays will need start ahead. The unit
   * ends once the canary's reset has answered (the others start then) or the canary has ended;
   * `canaryEnd` waits for the rest of it.
   */
  private async startCanary(iteration: number, regeneration: number, state: SlotState): Promise<void> {
    if (!state.env?.code) return;
    this.planPlays(state.env.code, state.plays * (1 + this.replaysLeft(iteration)) + (regeneration === iteration ? this.config.hintPlays : 0));
    state.announced = true;
    const lead = state.lead;
    if (!lead) return;
    const code = state.env.code;
    const spec = this.spec(regeneration, state.slot, false, unhintedPlayIndex(iteration, 0, this.config, state.plays), true);
    const played = (async () => {
      try {
        await this.playOne(iteration, state, spec, null);
        if (state.hung) this.planPlays(code, this.replaysLeft(iteration) * state.plays);
      } finally {
        lead.end(state.hung);
      }
    })();
    state.canaryPlay = played;
    // Awaited by `canaryEnd`; a failure is thrown there, never left unhandled meanwhile.
    played.catch(() => undefined);
    await Promise.race([lead.resetPassed, played]);
  }

  private async play(iteration: number, regeneration: number, state: SlotState, hinted: boolean, index: number): Promise<void> {
    if (!state.env || state.hung || (hinted && state.hint === null) || (!hinted && index >= state.plays)) return;
    const playIndex = hinted ? index : unhintedPlayIndex(iteration, index, this.config, state.plays);
    await this.playOne(iteration, state, this.spec(regeneration, state.slot, hinted, playIndex, false), hinted ? state.hint : null);
  }

  /**
   * Plays (or finds stored) one episode and stores it with its rollout. A play the infrastructure
   * failed (an error that is not a scored `step()` exception) is played once more, as the
   * reference's `run_single_game` retries (`max_attempts=2`), but not after a time-out: then the
   * game is hung and the rest of its plays this rollout are skipped. Only the retry's result is
   * stored; a note says the first attempt failed. A library's problem is not retried: the
   * reference's fixed-environment orchestrator plays each instance once (`play_env_async`).
   */
  private async playOne(iteration: number, state: SlotState, spec: PlaySpec, hint: string | null): Promise<{ timedOut: boolean } | null> {
    const { db } = this.deps;
    const env = state.env!;
    this.deps.trace?.(playKey(spec.seed, spec.playIndex, spec.hinted, spec.canary), "started", performance.now());
    const stored = findEpisode(db, env.id, spec.hinted, spec.playIndex, spec.canary);
    if (stored) {
      if (stored.timedOut) state.hung = true;
      return stored;
    }
    this.phase(iteration, state.slot, "playing");
    const tries = this.config.designer.kind === "library" ? 1 : 2;
    for (let attempt = 0; attempt < tries; attempt++) {
      let result: { timedOut: boolean; retry: boolean } | null = null;
      let following: FollowingSession | null = null;
      const lead = state.lead;
      try {
        await runPlays({
          open: async () => {
            const session = await this.openSession(env.code!, true);
            if (!lead) return session;
            if (spec.canary) return lead.lead(session);
            following = lead.follow(session);
            return following.session;
          },
          backend: this.deps.backend,
          specs: [spec],
          hint,
          maxTurns: this.config.maxTurns,
          sampling: { temperature: this.config.agent.temperature, topP: this.config.agent.topP, topK: this.config.agent.topK, maxTokens: this.config.agent.maxTokens, ...(this.config.agent.stop ? { stop: this.config.agent.stop } : {}) },
          historyTurns: this.config.agent.historyTurns ?? undefined,
          protocol: { thinking: this.config.agent.thinking, maskMalformedToolCalls: this.config.agent.maskMalformedToolCalls },
          signal: this.deps.signal,
          trace: this.deps.trace,
          // Later turns first while new plays remain; in the rollout's last wave, the turn with the most turns left after it.
          priority: (turn) => (this.lastWave ? -turn : turn),
          onEpisode: (episode) => {
            if (this.deps.signal?.aborted && episode.error) return; // cut short by pause/stop: played again on resume
            if ((following as FollowingSession | null)?.cut) return; // the canary hung: dropped, as the game's plays not yet started
            const { turns, ...fields } = episode;
            const failed = episode.error !== null && !episode.timedOut && !turns.some((turn) => turn.info.stepError === true);
            if (failed && attempt < tries - 1) {
              putRunNote(db, this.runId, iteration, "play retried", `environment ${env.id}, ${spec.hinted ? "hinted " : ""}play ${spec.playIndex}: ${episode.error} (played once more, as the reference retries a failed play)`);
              result = { timedOut: false, retry: true };
              return;
            }
            transaction(db, () => {
              const id = insertEpisodeWithTurns(db, { ...fields, runId: this.runId, environmentId: env.id }, turns);
              setEpisodeRollout(db, id, iteration);
            });
            result = { timedOut: episode.timedOut, retry: false };
            this.emit({ type: "episodeFinished", runId: this.runId, environmentId: env.id, hinted: episode.hinted, playIndex: episode.playIndex, return: episode.return, error: episode.error });
          },
        });
      } catch (error) {
        if (this.deps.signal?.aborted) return null;
        throw error;
      }
      const done = result as { timedOut: boolean; retry: boolean } | null;
      if (done?.retry) continue;
      if (done?.timedOut) state.hung = true;
      return done === null ? null : { timedOut: done.timedOut };
    }
    return null;
  }

  private phase(iteration: number, slot: number, phase: "designing" | "validating" | "hinting" | "playing" | "scoring", detail?: string): void {
    this.emit({ type: "slotPhase", runId: this.runId, iteration, slot, slots: this.config.envsPerIteration, phase, ...(detail === undefined ? {} : { detail }) });
  }

  private emit(event: LoopEvent): void {
    this.deps.onEvent?.(event);
  }
}

/**
 * The shared PromptTooLongError for an error that says a prompt did not fit, whichever backend
 * class threw it (matched by name and its token counts), else null.
 */
function asPromptTooLong(error: unknown): PromptTooLongError | null {
  if (error instanceof PromptTooLongError) return error;
  const e = error as { name?: unknown; promptTokens?: unknown; contextSize?: unknown; trainedContextSize?: unknown } | null;
  if (e?.name === "PromptTooLongError" && typeof e.promptTokens === "number" && typeof e.contextSize === "number") return new PromptTooLongError(e.promptTokens, e.contextSize, typeof e.trainedContextSize === "number" ? e.trainedContextSize : null);
  return null;
}

function failedReport(check: string, detail: string): ValidationReport {
  return { valid: false, className: null, checks: [{ name: check, ok: false, detail }], error: detail, durationMs: 0 };
}

function noCodeReport(): ValidationReport {
  return failedReport("code_block", "the designer's reply has no ```python code block");
}

function numericOnly(record: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
}

import type { ValidationReport } from "../../shared/environment.js";
import type { ChatMessage } from "../../shared/llm.js";
import type { RunConfig } from "../../shared/runConfig.js";
import type { Corpus } from "../corpus/Corpus.js";
import { countWords, truncateWords } from "../corpus/truncateWords.js";
import type { LlmBackend } from "../llm/LlmBackend.js";
import { runPlays, type PlaySpec } from "../rollout/runPlays.js";
import { repairFStringBraces } from "../sandbox/repairFStringBraces.js";
import type { SandboxPool } from "../sandbox/SandboxPool.js";
import type { WritableDb } from "../store/DatabaseHandle.js";
import { upsertDocument } from "../store/queries/documents.js";
import { getEnvStats, upsertEnvStats } from "../store/queries/envStats.js";
import { listEnvSetMembers } from "../store/queries/envSets.js";
import { findAttempt, getEnvironment, insertEnvironment, setEnvironmentNovelty, type Environment } from "../store/queries/environments.js";
import { findEpisode, insertEpisodeWithTurns, listEpisodes } from "../store/queries/episodes.js";
import { getHint, insertHint } from "../store/queries/hints.js";
import { completeIteration, startIteration } from "../store/queries/iterations.js";
import { addToMemory, evictOldestUnpinned, listMemory } from "../store/queries/memory.js";
import { putMetrics } from "../store/queries/metrics.js";
import { sampledTokensOf, setSampledTokens } from "../store/queries/sampledTokens.js";
import { getRun, setIterationsCompleted } from "../store/queries/runs.js";
import { transaction } from "../store/transaction.js";
import { deriveSeed, seededRandom } from "../util/seededRandom.js";
import { validateEnvironment } from "../validator/validateEnvironment.js";
import { designerMessages, repairMessages } from "./designerPrompt.js";
import { designerReward } from "./designerReward.js";
import { computeEnvStatistics } from "./envStatistics.js";
import { extractPythonCode } from "./extractCode.js";
import { iterationMetrics } from "./iterationMetrics.js";
import { judgeNovelty, type NoveltyReference } from "./judgeNovelty.js";
import type { LoopEvent } from "./LoopEvent.js";
import { selectMemoryReferences, type MemoryCandidate } from "./selectMemoryReferences.js";
import { skillHistory } from "./skillHistory.js";
import type { TrainingStep } from "./TrainingStep.js";
import { writeHint } from "./writeHint.js";

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
}

interface EnvironmentProbe {
  observation: string;
  hint: string | null;
  solution: string;
}

/** The seed used to compare first observations in the novelty check. */
const NOVELTY_PROBE_SEED = 0;

/**
 * The SPADE loop for one stored run. Every unit of work (designer attempt, hint, episode, scoring)
 * is looked up before it is done and stored when it is done, and every draw is seeded from the
 * run seed and the unit's coordinates; so a run killed at any moment resumes where it stopped,
 * stores nothing twice, and ends with the statistics an uninterrupted run would have.
 */
export class SelfPlayLoop {
  private readonly probeCache = new Map<number, EnvironmentProbe>();

  constructor(
    private readonly runId: number,
    private readonly config: RunConfig,
    private readonly deps: SelfPlayDeps,
  ) {}

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
      for (let slot = 0; slot < this.config.envsPerIteration; slot++) {
        if (this.deps.signal?.aborted) return "interrupted";
        const finished = await this.processSlot(iteration, slot);
        if (!finished) return "interrupted";
      }
      const metrics = iterationMetrics(db, this.runId, iteration, Date.now() - started.startedAt);
      transaction(db, () => {
        putMetrics(db, this.runId, iteration, metrics);
        completeIteration(db, this.runId, iteration);
        setIterationsCompleted(db, this.runId, iteration + 1);
      });
      this.emit({ type: "iterationCompleted", runId: this.runId, iteration, metrics: numericOnly(metrics) });
      if (!(await this.train(iteration))) return "interrupted";
    }
    return "completed";
  }

  /** The training round due after `iteration`, if the run trains. False when interrupted. */
  private async train(iteration: number): Promise<boolean> {
    if (!this.deps.training) return true;
    return (await this.deps.training.afterIteration(iteration, this.deps.signal)) === "done";
  }

  /** One environment slot: design (with repairs), then hint, plays and scoring. False when interrupted. */
  private async processSlot(iteration: number, slot: number): Promise<boolean> {
    const env = this.config.designer.kind === "fixed" ? await this.drawFixed(iteration, slot) : await this.design(iteration, slot);
    if (env === "interrupted") return false;
    if (!env.valid || getEnvStats(this.deps.db, env.id)) return true;
    return this.playAndScore(iteration, slot, env);
  }

  private skillAndDifficulty(iteration: number, slot: number): { skill: string; difficulty: string } {
    const random = seededRandom(this.config.seed, "skill", iteration, slot);
    const { skills, difficulties } = this.config.designer;
    return { skill: skills[Math.floor(random() * skills.length)]!, difficulty: difficulties[Math.floor(random() * difficulties.length)]! };
  }

  private async groundingDocument(iteration: number, slot: number): Promise<{ id: string; text: string } | null> {
    const { corpus } = this.deps;
    if (!corpus || !this.config.corpus) return null;
    const document = await corpus.sample(seededRandom(this.config.seed, "document", iteration, slot));
    const text = truncateWords(document.text, this.config.corpus.maxWords);
    upsertDocument(this.deps.db, { id: document.id, corpus: this.config.corpus.path, title: document.title, text, words: countWords(text) });
    return { id: document.id, text };
  }

  private memorySelection(iteration: number, slot: number, skill: string) {
    if (!this.config.memory.enabled) return null;
    const candidates: MemoryCandidate[] = listMemory(this.deps.db, this.runId, { inMemoryOnly: true }).map((entry) => ({
      environmentId: entry.environmentId,
      skill: entry.skill,
      className: getEnvironment(this.deps.db, entry.environmentId)?.className ?? null,
      codeExcerpt: entry.codeExcerpt ?? "",
      winRate: entry.winRate ?? 0,
      regret: entry.regret ?? 0,
    }));
    return selectMemoryReferences(candidates, skill, this.config.memory.references, seededRandom(this.config.seed, "memory", iteration, slot));
  }

  /** Designer attempts with repair turns; every attempt is stored, valid or not. */
  private async design(iteration: number, slot: number): Promise<Environment | "interrupted"> {
    const { db, backend } = this.deps;
    const { skill, difficulty } = this.skillAndDifficulty(iteration, slot);
    let document: { id: string; text: string } | null | undefined;
    let messages: ChatMessage[] | null = null;
    let previous: Environment | null = null;
    for (let attempt = 0; attempt < this.config.designer.attempts; attempt++) {
      const stored = findAttempt(db, this.runId, iteration, slot, attempt);
      if (stored) {
        previous = stored;
        messages = stored.prompt;
        if (stored.valid) return stored;
        continue;
      }
      if (this.deps.signal?.aborted) return "interrupted";
      if (previous === null) {
        document = await this.groundingDocument(iteration, slot);
        messages = designerMessages({ document: document?.text ?? null, memory: this.memorySelection(iteration, slot, skill), skill, difficulty });
      } else {
        messages = repairMessages(previous.prompt ?? [], previous.rawReply ?? "", previous.validationError ?? "invalid");
      }
      this.emit({ type: "slotPhase", runId: this.runId, iteration, slot, slots: this.config.envsPerIteration, phase: "designing", detail: `attempt ${attempt + 1}` });
      let reply;
      try {
        reply = await backend.chat({
          messages,
          sampling: { temperature: this.config.designer.temperature, maxTokens: this.config.designer.maxTokens, seed: deriveSeed(this.config.seed, "designer", iteration, slot, attempt) },
          signal: this.deps.signal,
        });
      } catch (error) {
        if (this.deps.signal?.aborted) return "interrupted";
        throw error;
      }
      const extracted = extractPythonCode(reply.text);
      const code = extracted !== null && this.config.designer.repairBraces ? await repairFStringBraces(this.deps.pool, extracted) : extracted;
      this.emit({ type: "slotPhase", runId: this.runId, iteration, slot, slots: this.config.envsPerIteration, phase: "validating" });
      const validation = code === null ? noCodeReport() : await validateEnvironment(this.deps.pool, code, { timeoutMs: this.config.sandbox.validationTimeoutMs });
      const id = transaction(db, () => {
        const envId = insertEnvironment(db, {
          runId: this.runId,
          iteration,
          slot,
          attempt,
          parentId: previous?.id ?? null,
          source: attempt === 0 ? "designer" : "repair",
          documentId: document?.id ?? previous?.documentId ?? null,
          skill,
          difficulty,
          prompt: messages,
          rawReply: reply.text,
          code,
          className: validation.className,
          valid: validation.valid,
          validation,
          validationError: validation.error,
          tokens: reply.promptTokens + reply.completionTokens,
          adapter: backend.adapter,
        });
        setSampledTokens(db, "environments", envId, sampledTokensOf(reply));
        if (!validation.valid) {
          upsertEnvStats(db, { environmentId: envId, plays: 0, hintPlays: 0, designerReward: this.config.reward.invalidReward, rewardKind: this.config.reward.kind });
        }
        return envId;
      });
      previous = getEnvironment(db, id)!;
      this.emit({ type: "environmentAdded", runId: this.runId, iteration, slot, environmentId: id, valid: validation.valid, className: validation.className });
      if (validation.valid) return previous;
    }
    return previous!;
  }

  /** The fixed-pool baseline: no designer calls; an environment drawn from the set. */
  private async drawFixed(iteration: number, slot: number): Promise<Environment> {
    const { db } = this.deps;
    const stored = findAttempt(db, this.runId, iteration, slot, 0);
    if (stored) return stored;
    const members = listEnvSetMembers(db, this.config.designer.set!);
    if (members.length === 0) throw new Error(`environment set "${this.config.designer.set}" is empty or does not exist`);
    const member = members[Math.floor(seededRandom(this.config.seed, "fixed", iteration, slot)() * members.length)]!;
    const validation = await validateEnvironment(this.deps.pool, member.code, { timeoutMs: this.config.sandbox.validationTimeoutMs });
    const id = transaction(db, () => {
      const envId = insertEnvironment(db, {
        runId: this.runId, iteration, slot, attempt: 0, source: "fixed", skill: member.skill, code: member.code,
        className: validation.className, valid: validation.valid, validation, validationError: validation.error,
      });
      if (member.hint !== null) insertHint(db, { environmentId: envId, source: "import", text: member.hint });
      if (!validation.valid) upsertEnvStats(db, { environmentId: envId, plays: 0, hintPlays: 0, designerReward: null, rewardKind: this.config.reward.kind });
      return envId;
    });
    this.emit({ type: "environmentAdded", runId: this.runId, iteration, slot, environmentId: id, valid: validation.valid, className: validation.className });
    return getEnvironment(db, id)!;
  }

  /**
   * One session per environment answers what the loop asks before playing: the first observation
   * for the novelty probe seed, the environment's own hint, and its reference solution.
   */
  private async probe(envId: number, code: string): Promise<EnvironmentProbe> {
    const cached = this.probeCache.get(envId);
    if (cached !== undefined) return cached;
    const session = await this.deps.pool.open(code, { stepTimeoutMs: this.config.sandbox.stepTimeoutMs });
    try {
      const { observation } = await session.reset(NOVELTY_PROBE_SEED);
      const probe = { observation, hint: await session.hint(), solution: await session.solution() };
      this.probeCache.set(envId, probe);
      return probe;
    } finally {
      await session.close();
    }
  }

  /** Near-duplicate check against the run's memory (the reference has none). */
  private async checkNovelty(env: Environment): Promise<boolean> {
    const { db } = this.deps;
    if (env.novelty !== null) return env.novelty === "novel";
    if (!this.config.memory.novelty) return true;
    const references: NoveltyReference[] = [];
    for (const entry of listMemory(db, this.runId, { inMemoryOnly: true })) {
      const stored = getEnvironment(db, entry.environmentId);
      if (!stored?.code || stored.id === env.id) continue;
      const observation = await this.probe(stored.id, stored.code).then((probe) => probe.observation, () => "");
      references.push({ environmentId: stored.id, code: stored.code, observation });
    }
    const observation = await this.probe(env.id, env.code!).then((probe) => probe.observation, () => "");
    const verdict = judgeNovelty({ code: env.code!, observation }, references, this.config.memory);
    setEnvironmentNovelty(db, env.id, verdict.novel ? "novel" : "duplicate", verdict.duplicateOf);
    return verdict.novel;
  }

  private async hintFor(env: Environment): Promise<string> {
    const { db, backend } = this.deps;
    const stored = getHint(db, env.id);
    if (stored) return stored.text;
    const { hint: own, solution } = await this.probe(env.id, env.code!);
    if (own !== null && own.trim() !== "") {
      insertHint(db, { environmentId: env.id, source: "env", text: own.trim() });
      return own.trim();
    }
    const written = await writeHint(backend, env.code!, solution, {
      temperature: this.config.hint.temperature,
      maxTokens: this.config.hint.maxTokens,
      seed: deriveSeed(this.config.seed, "hint", env.iteration ?? 0, env.slot ?? 0, env.attempt ?? 0),
    });
    insertHint(db, { environmentId: env.id, source: "writer", text: written.text, prompt: written.prompt, rawReply: written.rawReply });
    return written.text;
  }

  private playSpecs(iteration: number, slot: number): PlaySpec[] {
    const seed = (hinted: boolean, playIndex: number, canary: boolean) => deriveSeed(this.config.seed, "play", iteration, slot, playIndex, hinted ? 1 : 0, canary ? 1 : 0);
    const specs: PlaySpec[] = [];
    if (this.config.canary) specs.push({ hinted: false, playIndex: 0, canary: true, seed: seed(false, 0, true) });
    for (let i = 0; i < this.config.plays; i++) specs.push({ hinted: false, playIndex: i, canary: false, seed: seed(false, i, false) });
    for (let i = 0; i < this.config.hintPlays; i++) specs.push({ hinted: true, playIndex: i, canary: false, seed: seed(true, i, false) });
    return specs;
  }

  private async playAndScore(iteration: number, slot: number, env: Environment): Promise<boolean> {
    const { db } = this.deps;
    const phase = (name: "hinting" | "playing" | "scoring") =>
      this.emit({ type: "slotPhase", runId: this.runId, iteration, slot, slots: this.config.envsPerIteration, phase: name });
    const novel = await this.checkNovelty(env);
    phase("hinting");
    const hint = this.config.hintPlays > 0 ? await this.hintFor(env) : null;
    const specs = this.playSpecs(iteration, slot);
    const storedCanary = specs[0]?.canary ? findEpisode(db, env.id, false, 0, true) : null;
    const todo = specs.filter((spec) => !findEpisode(db, env.id, spec.hinted, spec.playIndex, spec.canary));
    if (!storedCanary?.timedOut && todo.length > 0) {
      phase("playing");
      try {
        await runPlays({
          open: () => this.deps.pool.open(env.code!, { stepTimeoutMs: this.config.sandbox.stepTimeoutMs }),
          backend: this.deps.backend,
          specs: todo,
          hint,
          maxTurns: this.config.maxTurns,
          sampling: { temperature: this.config.agent.temperature, maxTokens: this.config.agent.maxTokens },
          historyTurns: this.config.agent.historyTurns ?? undefined,
          signal: this.deps.signal,
          onEpisode: (episode) => {
            if (this.deps.signal?.aborted && episode.error) return; // cut short by pause/stop: played again on resume
            const { turns, ...fields } = episode;
            insertEpisodeWithTurns(db, { ...fields, runId: this.runId, environmentId: env.id }, turns);
            this.emit({ type: "episodeFinished", runId: this.runId, environmentId: env.id, hinted: episode.hinted, playIndex: episode.playIndex, return: episode.return, error: episode.error });
          },
        });
      } catch (error) {
        if (this.deps.signal?.aborted) return false;
        throw error;
      }
      if (this.deps.signal?.aborted) return false;
    }
    phase("scoring");
    const episodes = listEpisodes(db, env.id);
    const counted = episodes.filter((episode) => !episode.canary);
    const timeouts = episodes.filter((episode) => episode.timedOut).length;
    const stats = computeEnvStatistics(counted);
    // Only the learning-potential reward looks back at the skill's history (a scan of the run's environments).
    const history = this.config.reward.kind === "learningPotential" ? skillHistory(db, this.runId, env) : undefined;
    const reward = designerReward({ stats, timedOut: timeouts > 0, skillHistory: history }, this.config.reward);
    transaction(db, () => {
      upsertEnvStats(db, { environmentId: env.id, ...stats, designerReward: reward, rewardKind: this.config.reward.kind, stepTimeouts: timeouts });
      if (novel && timeouts === 0 && stats.winRate !== null) {
        addToMemory(db, { environmentId: env.id, runId: this.runId, skill: env.skill, code: env.code, winRate: stats.winRate, regret: stats.regret ?? 0, iteration });
        evictOldestUnpinned(db, this.runId, this.config.memory.capacity);
      }
    });
    this.emit({ type: "environmentScored", runId: this.runId, environmentId: env.id, winRate: stats.winRate, regret: stats.regret, designerReward: reward });
    return true;
  }

  private emit(event: LoopEvent): void {
    this.deps.onEvent?.(event);
  }
}

function noCodeReport(): ValidationReport {
  const detail = "the designer's reply has no ```python code block";
  return { valid: false, className: null, checks: [{ name: "code_block", ok: false, detail }], error: detail, durationMs: 0 };
}

function numericOnly(record: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
}

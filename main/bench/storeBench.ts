import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../../shared/llm.js";
import { openDatabase } from "../store/openDatabase.js";
import { insertEnvironment } from "../store/queries/environments.js";
import { insertEpisodesWithTurns, insertEpisodeWithTurns, type NewTurn } from "../store/queries/episodes.js";
import { createRun } from "../store/queries/runs.js";
import type { BenchSection } from "./BenchSection.js";

const turnsPerEpisode = 5;
const tokensPerTurn = 200;
const episodes = 4000;
const batchSize = 100;

/**
 * Turn rows stored per second through `insertEpisodeWithTurns`, one transaction per episode as the
 * loop does it: 5-turn episodes, 200 token ids and probabilities per turn, a growing conversation,
 * into a real WAL database file in a temp directory (`TMPDIR` chooses the disk). Also the same
 * through `insertEpisodesWithTurns`, 100 episodes per transaction.
 */
export const storeBench: BenchSection = {
  name: "store",
  async run(log) {
    const dir = mkdtempSync(join(tmpdir(), "spade-store-bench-"));
    try {
      const db = openDatabase(join(dir, "bench.sqlite"));
      const run = createRun(db, { name: "bench", seed: 1 });
      const environmentId = insertEnvironment(db, { runId: run.id, iteration: 0, slot: 0, attempt: 0, source: "designer", code: "class BenchEnv: pass", valid: true });
      const turns = sampleTurns();
      let playIndex = 0;
      const episode = () => ({ runId: run.id, environmentId, hinted: false, playIndex: playIndex++, seed: playIndex, return: 1 });
      let start = performance.now();
      for (let i = 0; i < episodes; i++) insertEpisodeWithTurns(db, episode(), turns);
      const seconds = (performance.now() - start) / 1000;
      start = performance.now();
      for (let i = 0; i < episodes; i += batchSize) {
        insertEpisodesWithTurns(db, Array.from({ length: batchSize }, () => ({ episode: episode(), turns })));
      }
      const batchedSeconds = (performance.now() - start) / 1000;
      db.close();
      const turnsInsertedPerSec = Math.round((episodes * turnsPerEpisode) / seconds);
      const turnsInsertedPerSecBatched = Math.round((episodes * turnsPerEpisode) / batchedSeconds);
      log(`store: ${episodes * turnsPerEpisode} turns in ${seconds.toFixed(2)} s (one transaction per episode), ${batchedSeconds.toFixed(2)} s (${batchSize} per transaction)`);
      return { turnsInsertedPerSec, turnsInsertedPerSecBatched };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function sampleTurns(): NewTurn[] {
  const system: ChatMessage = { role: "system", content: "You play a text game. Answer with \\boxed{<action>}. ".repeat(8) };
  let messages: ChatMessage[] = [system, { role: "user", content: "You stand in a maze. Exits: north, east. ".repeat(4) }];
  const turns: NewTurn[] = [];
  for (let t = 0; t < turnsPerEpisode; t++) {
    const rawReply = `I should go north first. \\boxed{north ${t}}`;
    const observation = `You walk north. The corridor continues (${t}). `.repeat(3);
    turns.push({
      messages,
      rawReply,
      reasoning: "The exit is probably north.",
      action: `north ${t}`,
      observation,
      reward: t === turnsPerEpisode - 1 ? 1 : 0,
      terminated: t === turnsPerEpisode - 1,
      truncated: false,
      info: { step: t },
      tokenIds: Array.from({ length: tokensPerTurn }, (_, i) => (i * 7919 + t) % 32000),
      tokenProbs: Array.from({ length: tokensPerTurn }, (_, i) => 1 / (1 + i)),
      latencyMs: 12.5,
      promptTokens: 300 + t * 60,
      completionTokens: tokensPerTurn,
    });
    messages = [...messages, { role: "assistant", content: rawReply }, { role: "user", content: observation }];
  }
  return turns;
}

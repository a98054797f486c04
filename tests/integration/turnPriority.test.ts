// Later turns first (issue 36): while the backend's slots are all taken, a play's next turn is
// served before new plays' first turns, so open plays finish (and give their sandbox back) instead
// of every play advancing a turn at a time. Real sandbox and loopback HTTP; the verdicts are orders
// of service, never clocks.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { benchGameCode } from "../../main/bench/latencyServer.js";
import { requestRole, ScriptedBackend } from "../../main/bench/ScriptedBackend.js";
import type { PlayTrace } from "../../main/rollout/PlayTrace.js";
import { SelfPlayLoop } from "../../main/selfplay/SelfPlayLoop.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { createRun } from "../../main/store/queries/runs.js";
import { Semaphore } from "../../main/util/Semaphore.js";
import { OpenAiBackend } from "../../main/llm/openai/OpenAiBackend.js";
import { runPlays, type PlaySpec } from "../../main/rollout/runPlays.js";
import { SandboxPool } from "../../main/sandbox/SandboxPool.js";

/** A game that never ends by itself: each play is cut off after `maxTurns` answers. */
const threeTurnGame = `class GuessEnv:
    def __init__(self, max_turns=3, **kwargs):
        self.reset()
    def reset(self, seed=None):
        return "Guess the number.", {}
    def step(self, action):
        return "No.", 0.0, False, False, {}
`;

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.create({ size: 3 });
});
afterAll(async () => {
  await pool?.dispose();
});

/** Waits a turn of the event loop (every pending promise settles first). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A server with one slot, in line by `request.priority` as the real backends are. The request
 * holding the slot answers only once every other unfinished play has its next request waiting, so
 * the line decides the order of service, never how fast a sandbox answered.
 */
function oneSlotBackend(turns: number) {
  const slot = new Semaphore(1);
  const answered = new Map<string, number>();
  const served: Array<{ play: string; turn: number }> = [];
  const plays = 3;
  const backend = new ScriptedBackend(async (request) => {
    const play = request.routingKey!;
    await slot.acquire(undefined, request.priority ?? 0);
    const turn = answered.get(play) ?? 0;
    served.push({ play, turn });
    const unfinished = plays - [...answered.values()].filter((count) => count >= turns).length;
    while (slot.waiting < unfinished - 1) await tick();
    answered.set(play, turn + 1);
    slot.release();
    return "I guess \\boxed{5}.";
  }, 1);
  return { backend, served };
}

describe("the turn priority", () => {
  it("serves an open play's next turn before a new play's first turn", async () => {
    const { backend, served } = oneSlotBackend(3);
    const specs: PlaySpec[] = [0, 1, 2].map((playIndex) => ({ hinted: false, playIndex, canary: false, seed: 100 + playIndex }));
    const outcome = await runPlays({ open: () => pool.open(threeTurnGame), backend, specs, hint: null, maxTurns: 3, concurrency: 3 });
    expect(outcome.episodes.map((episode) => [episode.error, episode.turns.length])).toEqual([[null, 3], [null, 3], [null, 3]]);
    // Plays named by the order of their first request: the two first served finish before the third starts.
    const names = [...new Set(served.map((request) => request.play))];
    const order = served.map((request) => `${"XYZ"[names.indexOf(request.play)]}${request.turn}`);
    expect(order).toEqual(["X0", "Y0", "X1", "Y1", "X2", "Y2", "Z0", "Z1", "Z2"]);
    // Each request says its turn as its priority.
    for (const play of names) expect(backend.calls.filter((request) => request.routingKey === play).map((request) => request.priority)).toEqual([0, 1, 2]);
  });

  it("reaches the OpenAI backend's request limit: waiting requests go out highest priority first", async () => {
    const arrived: string[] = [];
    const held: Array<() => void> = [];
    const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (!req.url?.endsWith("/chat/completions")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [] }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messages: Array<{ content: string }> };
      const name = body.messages[0]!.content;
      arrived.push(name);
      held.push(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: `ok ${name}` }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1 } })));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const backend = new OpenAiBackend({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: "m", maxConcurrency: 1, stream: false, logprobs: false });
    try {
      const ask = (name: string, priority?: number) => backend.chat({ messages: [{ role: "user", content: name }], ...(priority === undefined ? {} : { priority }) });
      const replies = [ask("first")];
      while (arrived.length < 1) await tick();
      replies.push(ask("new play", 0), ask("third turn", 2), ask("second turn", 1), ask("no priority"));
      for (let i = 0; i < 5; i++) await tick();
      for (let answered = 0; answered < 5; answered++) {
        while (held.length === 0) await tick();
        held.shift()!();
      }
      expect((await Promise.all(replies)).map((reply) => reply.text)).toEqual(["ok first", "ok new play", "ok third turn", "ok second turn", "ok no priority"]);
      expect(arrived).toEqual(["first", "third turn", "second turn", "new play", "no priority"]);
    } finally {
      await backend.dispose();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("in the rollout's last wave (every unit started) puts a play's first turns before its later ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spade-turn-priority-"));
    try {
      const config = parseRunConfig({
        db: join(dir, "run.sqlite"), seed: 3, iterations: 1, envsPerIteration: 1, plays: 3, hintPlays: 0, maxTurns: 3,
        backend: { kind: "openai", baseUrl: "http://127.0.0.1:9/v1", model: "scripted" }, corpus: null, training: null,
      }, "turnPriority.json");
      const db = openDatabase(config.db);
      const started: string[] = [];
      const trace: PlayTrace = (play, mark) => {
        if (mark === "started") started.push(play);
      };
      // The bench's three-turn game under its own name (this pool opened the other test's code without a run's maxTurns).
      const code = benchGameCode.replace("GuessEnv", "WaveEnv");
      const backend = new ScriptedBackend((request) => (requestRole(request) === "designer" ? `\`\`\`python\n${code}\`\`\`` : "I guess \\boxed{5}."), 1);
      // One play at a time: the canary, then the second play, then the third, which starts the graph's last unit.
      const outcome = await new SelfPlayLoop(createRun(db, { config, seed: config.seed }).id, config, { db, backend, pool, corpus: null, trace, playConcurrency: 1 }).run();
      db.close();
      expect(outcome).toBe("completed");
      expect(started).toHaveLength(3);
      const priorities = (play: string) => backend.calls.filter((request) => request.routingKey === play).map((request) => (request.priority ?? 0) + 0);
      expect(started.map(priorities)).toEqual([[0, 1, 2], [0, 1, 2], [0, -1, -2]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

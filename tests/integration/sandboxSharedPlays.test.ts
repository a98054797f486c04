// Concurrent plays of one game in one sandbox process (`playsPerProcess`): the child parks the
// play in its interpreter and puts another back by the exact memory restore it uses between plays.
// What must hold: a play's transcript (observations, rewards, printed text) is the same step by
// step whether it ran alone or interleaved with siblings; a play sees nothing a sibling did; a
// sibling that changes state outside the memory keeps the process to itself and the others fail,
// each with an error naming why; a sibling's time-out fails the others with a sibling error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvSession } from "../../main/sandbox/EnvSession.js";
import { SandboxSiblingError, SandboxTimeoutError } from "../../main/sandbox/errors.js";
import type { SandboxPool } from "../../main/sandbox/SandboxPool.js";
import { createTestPool } from "../support/sandboxTestPool.js";

/** A stateful game: module-level globals, a growing module-level list, random, the clocks, printing, ids. */
const STATEFUL = `
import os, random, time
COUNTER = 0
HISTORY = []

class StatefulEnv:
    def reset(self, seed=None):
        global COUNTER
        COUNTER += 1
        HISTORY.append(("reset", seed))
        self.secret = random.randint(0, 10**6)
        print("reset", seed, COUNTER, len(HISTORY))
        return f"seed {seed} counter {COUNTER} history {len(HISTORY)} secret {self.secret} t {time.time():.3f} id {id(self) % 9973}", {"u": os.urandom(4).hex()}

    def step(self, action):
        global COUNTER
        COUNTER += 1
        HISTORY.append(action * 5000)
        noise = random.random()
        print("step", action, COUNTER, len(HISTORY))
        done = len(HISTORY) >= 5
        return f"{action} counter {COUNTER} history {len(HISTORY)} r {noise:.9f} m {time.monotonic():.3f} list {len(HISTORY[-1])}", round(noise, 6), done, False, {"id": id([]) % 9973}

    def solution(self):
        return str(self.secret)
`;

/** A play of a game, call by call: a transcript of everything it answered and printed. */
interface Player {
  session: EnvSession;
  transcript: unknown[];
}

const pidOf = (session: EnvSession) => (session as unknown as { process: { pid: number } }).process.pid;
const printed = (session: EnvSession) => (session as unknown as { printed(): string }).printed();

async function playAlone(pool: SandboxPool, code: string, seed: number, actions: string[]): Promise<unknown[]> {
  const session = await pool.open(code);
  const transcript: unknown[] = [await session.reset(seed)];
  for (const action of actions) transcript.push(await session.step(action));
  transcript.push(printed(session));
  await session.close();
  return transcript;
}

describe("plays of one game sharing a sandbox process", () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await createTestPool({ concurrency: 1, prewarm: 1, capacity: 3, playsPerProcess: 4, stepTimeoutMs: 20_000 });
  });
  afterAll(async () => {
    await pool?.dispose();
  });

  it("gives every play the same transcript, step by step, interleaved with siblings as alone", async () => {
    const seeds = [11, 12, 13];
    const actions = ["a", "b", "c", "d"];
    const alone: unknown[][] = [];
    for (const seed of seeds) alone.push(await playAlone(pool, STATEFUL, seed, actions));
    expect(new Set(alone.map((transcript) => JSON.stringify(transcript))).size).toBe(3);

    const before = pool.stats();
    const players: Player[] = [];
    for (const seed of seeds) {
      const session = await pool.open(STATEFUL);
      players.push({ session, transcript: [] });
      // Each reset runs right after its open, so the plays are interleaved from the start.
      players.at(-1)?.transcript.push(await session.reset(seed));
    }
    expect(new Set(players.map((player) => pidOf(player.session))).size).toBe(1);
    // Round robin in changing orders: every call switches plays.
    const orders = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]];
    for (const [turn, order] of orders.entries()) {
      for (const index of order) {
        const player = players[index] as Player;
        player.transcript.push(await player.session.step(actions[turn] as string));
      }
    }
    for (const player of players) {
      player.transcript.push(printed(player.session));
      await player.session.close();
    }
    players.forEach((player, index) => expect(player.transcript).toEqual(alone[index]));
    const stats = pool.stats();
    expect(stats.sharedOpens - before.sharedOpens).toBe(2);
    expect(stats.sharedPlaysPeak).toBeGreaterThanOrEqual(3);
    expect(stats.playSwitchP50Ms).toBeGreaterThan(0);
    expect(stats.processesStarted).toBe(before.processesStarted);
  }, 180_000);

  it("gives plays opened from the base and parked before they ran (no comparison of the memory) the transcripts they give alone", async () => {
    const seeds = [31, 32, 33];
    const actions = ["a", "b"];
    const alone: unknown[][] = [];
    for (const seed of seeds) alone.push(await playAlone(pool, STATEFUL, seed, actions));
    // Every play is opened before any runs: each open parks the one before it while it is still the base.
    const sessions: EnvSession[] = [];
    for (let index = 0; index < seeds.length; index++) sessions.push(await pool.open(STATEFUL));
    expect(new Set(sessions.map(pidOf)).size).toBe(1);
    const transcripts: unknown[][] = sessions.map(() => []);
    for (const index of [2, 0, 1]) transcripts[index]!.push(await sessions[index]!.reset(seeds[index]!));
    for (const action of actions) for (const index of [1, 2, 0]) transcripts[index]!.push(await sessions[index]!.step(action));
    for (const [index, session] of sessions.entries()) {
      transcripts[index]!.push(printed(session));
      await session.close();
    }
    expect(transcripts).toEqual(alone);
  }, 120_000);

  it("sends a play's next request before a sibling's that waited: its close right after its last step, with no switch between", async () => {
    const first = await pool.open(STATEFUL);
    const second = await pool.open(STATEFUL);
    expect(pidOf(second)).toBe(pidOf(first));
    await first.reset(21);
    await second.reset(22);
    const order: string[] = [];
    // The sibling's step is asked while the first play's step runs; the first play's close is asked only when its step answers.
    const firstDone = first.step("a").then(async () => {
      await first.close();
      order.push("first closed");
    });
    const secondDone = second.step("b").then(() => order.push("second stepped"));
    await Promise.all([firstDone, secondDone]);
    expect(order).toEqual(["first closed", "second stepped"]);
    await second.close();
  }, 60_000);

  it("keeps a play opened in a never-used process (validation's replay) to itself: no sibling joins it", async () => {
    const code = STATEFUL.replace("class StatefulEnv", "class ReplayEnv");
    const shared = pool.stats().sharedOpens;
    const replay = await pool.open(code, { freshProcess: true });
    expect((replay as unknown as { freshInterpreter: boolean }).freshInterpreter).toBe(true);
    const other = pool.open(code);
    await replay.reset(1);
    await replay.close();
    const play = await other;
    await play.close();
    expect(pool.stats().sharedOpens).toBe(shared);
  }, 180_000);

  it("lets no play see anything a sibling play did (globals, builtins, modules, files, gc, ids, the clock, randomness)", async () => {
    const code = `
import builtins, gc, json, os, random, sys, time
SECRETS = []

class RedTeamEnv:
    def reset(self, seed=None):
        self.role = "attacker" if seed == 1 else "victim"
        return self.look("reset"), {}

    def look(self, when):
        seen = {"when": when, "secrets": len(SECRETS), "builtin": hasattr(builtins, "PLANTED"), "module": getattr(json, "PLANTED", None),
                "path": "/planted" in sys.path, "t": round(time.time(), 3), "r": random.random(), "u": os.urandom(8).hex(),
                "id": id(object()) % 99991, "file": os.path.exists("/tmp/planted.txt"), "env": os.environ.get("PLANTED")}
        try:
            seen["gc"] = sum(1 for o in gc.get_objects() if isinstance(o, list))
        except Exception as error:
            seen["gc"] = type(error).__name__
        return json.dumps(seen, sort_keys=True)

    def step(self, action):
        if self.role == "attacker":
            SECRETS.extend(["x" * 100000 for _ in range(20)])
            builtins.PLANTED = True
            json.PLANTED = "attacker"
            sys.path.append("/planted")
            try:
                os.environ["PLANTED"] = "1"
            except Exception:
                pass
            for _ in range(50):
                time.time(); random.random(); os.urandom(64)
            try:
                with open("/tmp/planted.txt", "w") as handle:
                    handle.write("planted")
            except Exception:
                pass
            return "attacked", 0.0, False, False, {}
        return self.look(action), 0.0, False, False, {}

    def solution(self):
        return "none"
`;
    const actions = ["first", "second", "third"];
    const alone = await playAlone(pool, code, 2, actions);
    const victim = await pool.open(code);
    const attacker = await pool.open(code);
    expect(pidOf(attacker)).toBe(pidOf(victim));
    const transcript: unknown[] = [await victim.reset(2)];
    await attacker.reset(1);
    for (const action of actions) {
      await attacker.step("attack");
      transcript.push(await victim.step(action));
    }
    transcript.push(printed(victim));
    await attacker.close();
    await victim.close();
    expect(transcript).toEqual(alone);
    expect(JSON.stringify(transcript)).not.toMatch(/attacker|"builtin": true|"secrets": [1-9]/);
  }, 180_000);

  it("keeps the process to a play that changes state outside the memory: its parked siblings fail naming why, and the game shares no more", async () => {
    const code = `
import os
class PipeEnv:
    def reset(self, seed=None):
        return f"seed {seed}", {}
    def step(self, action):
        if action == "pipe":
            os.pipe()
        return action, 0.0, False, False, {}
    def solution(self):
        return "pipe"
`;
    const parked = await pool.open(code);
    const changer = await pool.open(code);
    expect(pidOf(changer)).toBe(pidOf(parked));
    await parked.reset(1);
    await changer.reset(2);
    expect((await changer.step("pipe")).observation).toBe("pipe");
    const error = await parked.step("go").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SandboxSiblingError);
    expect((error as Error).message).toMatch(/sibling play of the same game .* changed state outside the interpreter's memory/);
    // The changer goes on in its process.
    expect((await changer.step("still here")).observation).toBe("still here");
    await parked.close();
    await changer.close();
    // From now on its plays do not share: a second play does not join the first one's process.
    const shared = pool.stats().sharedOpens;
    const one = await pool.open(code);
    const second = pool.open(code);
    await one.reset(3);
    await one.close();
    const two = await second;
    await two.close();
    expect(pool.stats().sharedOpens).toBe(shared);
  }, 180_000);

  it("fails the parked siblings of a play whose step times out, each with an error naming the sibling's time-out", async () => {
    const code = `
class SlowEnv:
    def reset(self, seed=None):
        return f"seed {seed}", {}
    def step(self, action):
        while action == "hang":
            pass
        return action, 0.0, False, False, {}
    def solution(self):
        return "hang"
`;
    const sessions = [await pool.open(code, { stepTimeoutMs: 1500 }), await pool.open(code, { stepTimeoutMs: 1500 }), await pool.open(code, { stepTimeoutMs: 1500 })];
    const [hanging, waiting, parked] = sessions as [EnvSession, EnvSession, EnvSession];
    expect(new Set(sessions.map(pidOf)).size).toBe(1);
    for (const [index, session] of sessions.entries()) await session.reset(index);
    const [own, behind] = await Promise.all([hanging.step("hang").catch((caught: unknown) => caught), waiting.step("go").catch((caught: unknown) => caught)]);
    expect(own).toBeInstanceOf(SandboxTimeoutError);
    expect(behind).toBeInstanceOf(SandboxSiblingError);
    expect((behind as Error).message).toMatch(/ended the process: step\(\): timeout/);
    const later = await parked.step("go").catch((caught: unknown) => caught);
    expect(later).toBeInstanceOf(SandboxSiblingError);
    expect((later as Error).message).toMatch(/timeout/);
    for (const session of sessions) await session.close();
    // The pool goes on: the next play gets a process of its own.
    const next = await pool.open(code);
    expect((await next.reset(5)).observation).toBe("seed 5");
    await next.close();
  }, 180_000);
});

describe("a play of a game with a process that can take it, while the warm set holds a surplus", () => {
  it("takes a never-used process beyond the warm set's target instead of sharing, and shares once none is left", async () => {
    const pool = await createTestPool({ concurrency: 1, prewarm: 2, capacity: 4, playsPerProcess: 4 });
    try {
      await pool.prewarm(2);
      await pool.prewarm(0); // the target drops: the two ready processes are a surplus now
      const first = await pool.open(STATEFUL);
      const second = await pool.open(STATEFUL);
      expect(pidOf(second)).not.toBe(pidOf(first));
      // Once the surplus is used up, the next play shares a process of its game.
      const sessions = [first, second];
      const shared = pool.stats().sharedOpens;
      while (pool.stats().sharedOpens === shared && sessions.length < 5) sessions.push(await pool.open(STATEFUL));
      expect(pool.stats().sharedOpens).toBe(shared + 1);
      const last = sessions.at(-1) as EnvSession;
      expect(sessions.slice(0, -1).map(pidOf)).toContain(pidOf(last));
      for (const session of sessions) await session.close();
    } finally {
      await pool.dispose();
    }
  }, 180_000);
});

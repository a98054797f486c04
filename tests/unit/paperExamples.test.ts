// The README's reproduction configs parse as run configs, each is what its name says (SPADE, the
// two baselines, the two ablations), and the held-out games suite parses as a library suite.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseRunConfig } from "../../shared/runConfig.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";
import { readLibrarySuite } from "../../main/eval/readLibrarySuite.js";
import { readTau2Suite } from "../../main/eval/readTau2Suite.js";

const examples = resolve(import.meta.dirname, "../../resources/examples");
const read = (name: string) => parseRunConfig(JSON.parse(readFileSync(join(examples, name), "utf8")), name);
// LoRA is this project's deviation on every training run; the badges beside it say what each run is.
const badges = (name: string) => describeAblations(read(name)).filter((badge) => !badge.startsWith("deviation: LoRA"));

describe("the paper's reproduction configs", () => {
  it("are SPADE, the RLVE and static-pool baselines, and the two ablations", () => {
    expect(badges("paper-spade.json")).toEqual([]);
    expect(badges("paper-rlve.json")).toEqual(["baseline: RLVE official16 (sliding window, 32 plays at 0.9)"]);
    expect(badges("paper-static.json")).toEqual(['baseline: static pool "static-games"']);
    expect(badges("paper-no-corpus.json")).toEqual(["no corpus"]);
    expect(badges("paper-no-memory.json")).toEqual(["no memory"]);
  });

  it("share the model, the rollout count and the held-out gate", () => {
    const configs = ["paper-spade.json", "paper-rlve.json", "paper-static.json", "paper-no-corpus.json", "paper-no-memory.json"].map(read);
    expect(new Set(configs.map((c) => JSON.stringify(c.backend))).size).toBe(1);
    expect(new Set(configs.map((c) => c.iterations))).toEqual(new Set([40]));
    expect(new Set(configs.map((c) => c.training?.eval?.suite))).toEqual(new Set(["suites/gpqa-diamond.jsonl"]));
    // 25 questions a round: at 100 the in-run check alone would outlast the night (README, "What each run costs").
    expect(new Set(configs.map((c) => c.training?.eval?.limit))).toEqual(new Set([25]));
  });

  it("RLVE: the launcher's cadence, its window scaled with the plays (train_fixed_rlve_4b.sh: 16 plays, tau_num 128)", () => {
    const rlve = read("paper-rlve.json");
    const library = rlve.designer.library!;
    expect(rlve).toMatchObject({ regenerationInterval: 1, hintPlays: 0, envsPerIteration: 16, agent: { temperature: 1 } });
    expect(library).toMatchObject({ kind: "rlve", set: "official16", controller: { tauAcc: 0.9, dDelta: 4 } });
    // A promotion check every tauNum / plays rollouts at the top, as the launcher's 128 / 16 = 8.
    expect(library.controller.tauNum / rlve.plays!).toBe(128 / 16);
  });

  it("include a held-out games suite of GEM's reasoning-gym tasks", () => {
    const suite = readLibrarySuite(join(examples, "suites", "games-gem.json"));
    expect(suite).toMatchObject({ library: { kind: "gem", set: ["rg:basic_arithmetic-hard", "rg:chain_sum-hard", "rg:gcd-hard", "rg:lcm-hard"] }, episodes: 8, maxTurns: 2 });
  });

  it("include the reference's tau2 run: retail, telecom and airline, base split, 4 trials, 200 steps", () => {
    const suite = readTau2Suite(join(examples, "suites", "tau2.json"));
    expect(suite.tasks.map((t) => `${t.domain}/${t.split}`)).toEqual(["retail/base", "telecom/base", "airline/base"]);
    expect(suite).toMatchObject({ numTrials: 4, maxSteps: 200, agent: { temperature: 0, topP: 0.8, topK: 20, maxTokens: 16384 }, user: { temperature: 0, maxTokens: 2048 } });
  });
});

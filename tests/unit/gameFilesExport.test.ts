// The game-files export names each game by its rollout and content, so a second export into the
// same folder keeps the games of the first, and the manifest, spade-games.json and the README list both exports' games.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EnvPackageManifest, PackagedEnvironment } from "../../shared/envExport.js";
import { exportEnvironmentPackages } from "../../main/exports/packages/exportEnvironmentPackages.js";
import { gameFileName } from "../../main/exports/packages/gameFilesWriter.js";

const game = (className: string, answer: number, source: string): PackagedEnvironment => ({
  className,
  code: `class ${className}:\n    def reset(self, seed=None):\n        return "guess", {}\n    def step(self, action):\n        return "", float(action == "${answer}"), True, False, {}\n`,
  hint: null, skill: "Logical Deduction", winRate: 0.5, hintWinRate: 1, regret: 0.5, source, runId: 1, iteration: 0, maxTurns: 25,
});

describe("game-files export into one folder twice", () => {
  it("keeps both exports' games, each file named by its content, and a manifest listing both", () => {
    const outDir = mkdtempSync(join(tmpdir(), "spade-game-files-"));
    const first = exportEnvironmentPackages([game("FirstEnv", 1, "run:1/env:3")], { format: "game-files", outDir, selection: "run:1" });
    const second = exportEnvironmentPackages([game("SecondEnv", 2, "run:1/env:4")], { format: "game-files", outDir, selection: "run:2" });
    const files = readdirSync(outDir).filter((name) => name.startsWith("game_")).sort();
    expect(files).toHaveLength(2);
    for (const name of files) expect(name).toMatch(/^game_00000_\d{15}_logical_deduction\.py$/);
    const held = files.map((name) => readFileSync(join(outDir, name), "utf8"));
    expect(held.some((text) => text.includes("class FirstEnv:"))).toBe(true);
    expect(held.some((text) => text.includes("class SecondEnv:"))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8")) as EnvPackageManifest;
    expect(manifest.packages.map((entry) => entry.className)).toEqual(["FirstEnv", "SecondEnv"]);
    expect(manifest.packages.map((entry) => entry.path).sort()).toEqual(files);
    expect(second.packages).toEqual(manifest.packages);
    // The folder's own index and README list both exports' games too.
    const index = JSON.parse(readFileSync(join(outDir, "spade-games.json"), "utf8")) as { file: string; className: string }[];
    expect(index.map((entry) => [entry.className, entry.file])).toEqual(manifest.packages.map((entry) => [entry.className, entry.path]));
    const readme = readFileSync(join(outDir, "README.md"), "utf8");
    for (const name of files) expect(readme).toContain(`| \`${name}\` |`);
    // The same game exported again gets the same name (no second copy).
    const again = exportEnvironmentPackages([game("FirstEnv", 1, "run:1/env:3")], { format: "game-files", outDir });
    expect(again.packages.map((entry) => entry.className)).toEqual(["SecondEnv", "FirstEnv"]);
    expect(again.packages[1]!.path).toBe(first.packages[0]!.path);
    expect(readdirSync(outDir).filter((name) => name.startsWith("game_"))).toHaveLength(2);
  });
});

/**
 * How the reference's evaluation reads a game's skill back from its file name (spade-rl/spade
 * 9b2b813, spade/core/eval/fixed_model_eval.py `_extract_skill_from_game_file`): the stem's parts
 * after "game_", from the first that does not start with a digit, joined with spaces and
 * title-cased; "Unknown" when none is left.
 */
function referenceSkillOf(fileName: string): string {
  const parts = fileName.replace(/\.py$/, "").slice("game_".length).split("_");
  const start = parts.findIndex((part) => !/^[0-9]/.test(part));
  if (start < 0) return "Unknown";
  return parts.slice(start).join(" ").replace(/\w\S*/g, (word) => word[0]!.toUpperCase() + word.slice(1).toLowerCase());
}

describe("game-files names", () => {
  it("read back as their skill by the reference's evaluation, whatever the content's digest", () => {
    for (let answer = 0; answer < 32; answer++) {
      const name = gameFileName(7, Buffer.from(`class Game${answer}: pass\n`), "Logical Deduction");
      expect(name).toMatch(/^game_00007_\d{15}_logical_deduction\.py$/);
      expect(referenceSkillOf(name)).toBe("Logical Deduction");
    }
  });
});

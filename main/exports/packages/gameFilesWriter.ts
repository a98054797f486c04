import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { loadTemplate } from "./loadTemplate.js";
import { markdownCell, markdownCodeCell } from "./markdownCell.js";
import { referenceGameCode } from "./referenceGameCode.js";
import { renderTemplate } from "../../util/renderTemplate.js";
import type { EnvPackageWriter, PackageFile } from "./EnvPackageWriter.js";

/** The header the reference's self-play writes above every saved game (spade-rl/spade `save_game_file`). */
const GAME_HEADER = '"""SPADE self-play generated game"""\n\n';

/**
 * The reference's file name: `game_<rollout:05d>_<index:03d>_<skill slug>.py`, the slug cut at
 * 100 characters (the skill is environment text; a file name has at most 255 bytes).
 */
export function gameFileName(rollout: number, index: number, skill: string | null): string {
  const slug = (skill ?? "unknown").toLowerCase().replace(/ /g, "_").replace(/[^a-z0-9_]/g, "").slice(0, 100);
  return `game_${String(rollout).padStart(5, "0")}_${String(index).padStart(3, "0")}_${slug || "unknown"}.py`;
}

/**
 * The reference's saved-game folder (read by `--spade-fixed-env-source game_file:<dir>`): one
 * `game_*.py` per environment, numbered within its rollout (imports of `spade_env` made imports of
 * the reference's `tool_use_base_env`); `spade-games.json` keeps each game's
 * hint, statistics and origin, and the README says where it came from.
 */
export const gameFilesWriter: EnvPackageWriter = {
  format: "game-files",
  write(environments) {
    const perRollout = new Map<number, number>();
    const named = environments.map((environment) => {
      const rollout = environment.iteration ?? 0;
      const index = perRollout.get(rollout) ?? 0;
      perRollout.set(rollout, index + 1);
      return { environment, path: gameFileName(rollout, index, environment.skill) };
    });
    const files: PackageFile[] = named.map(({ environment, path }) => ({ path, bytes: Buffer.from(GAME_HEADER + referenceGameCode(environment.code)) }));
    const index = named.map(({ environment, path }) => ({ file: path, ...describe(environment) }));
    files.push({ path: "spade-games.json", bytes: Buffer.from(`${JSON.stringify(index, null, 2)}\n`) });
    const maxTurns = [...new Set(environments.map((environment) => environment.maxTurns))].join(" / ") || "25";
    const table = ["| file | class | source | skill | win rate | regret |", "|---|---|---|---|---|---|", ...named.map(({ environment, path }) => `| \`${path}\` | ${markdownCodeCell(environment.className)} | ${markdownCodeCell(environment.source)} | ${markdownCell(environment.skill ?? "")} | ${environment.winRate ?? ""} | ${environment.regret ?? ""} |`)];
    files.push({ path: "README.md", bytes: Buffer.from(renderTemplate(loadTemplate("game-files", "README.md.tmpl"), { dir: "<this folder>", maxTurns, games: table.join("\n") })) });
    return { files, packages: named.map(({ environment, path }) => ({ path, environment })) };
  },
};

function describe(environment: PackagedEnvironment) {
  const { code: _code, ...rest } = environment;
  return rest;
}

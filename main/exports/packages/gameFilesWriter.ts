import { createHash } from "node:crypto";
import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { loadTemplate } from "./loadTemplate.js";
import { markdownCell, markdownCodeCell } from "./markdownCell.js";
import { referenceGameCode } from "./referenceGameCode.js";
import { renderTemplate } from "../../util/renderTemplate.js";
import type { EnvPackageWriter, PackageFile } from "./EnvPackageWriter.js";

/** The header the reference's self-play writes above every saved game (spade-rl/spade `save_game_file`). */
const GAME_HEADER = '"""SPADE self-play generated game"""\n\n';

/**
 * The file name: the reference's `game_<rollout:05d>_<index:03d>_<skill slug>.py` with the index
 * (its place in the reference's batch) replaced by the first 48 bits of the file's SHA-256 written
 * as 15 decimal digits, so a name is the same in every export and a second export into the same
 * folder keeps the games of the first; the slug cut at 100 characters (the skill is environment
 * text; a file name has at most 255 bytes). The reference's loader reads every `game_*.py` of the
 * folder, and its evaluation reads the skill back from the name as the parts after the leading
 * ones that start with a digit (spade-rl/spade `spade/core/eval/fixed_model_eval.py`,
 * `_extract_skill_from_game_file`): hex digits would make a digest that starts with a-f part of the
 * skill, so the digest is all digits.
 */
export function gameFileName(rollout: number, bytes: Buffer, skill: string | null): string {
  const slug = (skill ?? "unknown").toLowerCase().replace(/ /g, "_").replace(/[^a-z0-9_]/g, "").slice(0, 100);
  const digest = BigInt(`0x${createHash("sha256").update(bytes).digest("hex").slice(0, 12)}`).toString().padStart(15, "0");
  return `game_${String(rollout).padStart(5, "0")}_${digest}_${slug || "unknown"}.py`;
}

/**
 * The reference's saved-game folder (read by `--spade-fixed-env-source game_file:<dir>`): one
 * `game_*.py` per environment, named by its rollout and content (imports of `spade_env` made imports of
 * the reference's `tool_use_base_env`); `spade-games.json` keeps each game's
 * hint, statistics and origin, and the README says where it came from.
 */
export const gameFilesWriter: EnvPackageWriter = {
  format: "game-files",
  write(environments, earlier = () => null) {
    const named = environments.map((environment) => {
      const bytes = Buffer.from(GAME_HEADER + referenceGameCode(environment.code));
      return { environment, bytes, path: gameFileName(environment.iteration ?? 0, bytes, environment.skill) };
    });
    const files: PackageFile[] = named.map(({ path, bytes }) => ({ path, bytes }));
    // The games an earlier export left in the folder stay listed (their files are still there); an entry of the same file is the new one.
    const written = new Set(named.map(({ path }) => path));
    const index: IndexEntry[] = [...earlierIndex(earlier("spade-games.json")).filter((entry) => !written.has(entry.file)), ...named.map(({ environment, path }) => ({ file: path, ...describe(environment) }))];
    files.push({ path: "spade-games.json", bytes: Buffer.from(`${JSON.stringify(index, null, 2)}\n`) });
    const maxTurns = [...new Set(index.map((entry) => entry.maxTurns))].join(" / ") || "25";
    const table = ["| file | class | source | skill | win rate | regret |", "|---|---|---|---|---|---|", ...index.map((entry) => `| \`${entry.file}\` | ${markdownCodeCell(entry.className)} | ${markdownCodeCell(entry.source)} | ${markdownCell(entry.skill ?? "")} | ${entry.winRate ?? ""} | ${entry.regret ?? ""} |`)];
    files.push({ path: "README.md", bytes: Buffer.from(renderTemplate(loadTemplate("game-files", "README.md.tmpl"), { dir: "<this folder>", maxTurns, games: table.join("\n") })) });
    return { files, packages: named.map(({ environment, path }) => ({ path, environment })) };
  },
};

type IndexEntry = { file: string } & Omit<PackagedEnvironment, "code">;

/** The entries of an earlier export's `spade-games.json` that have the shape this writer writes; none when it is missing or unreadable. */
function earlierIndex(text: string | null): IndexEntry[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((entry): entry is IndexEntry => entry !== null && typeof entry === "object" && typeof entry.file === "string" && /^game_[a-z0-9_]+\.py$/.test(entry.file) && typeof entry.className === "string" && typeof entry.source === "string" && typeof entry.maxTurns === "number" && [entry.winRate, entry.regret].every((value) => value === null || typeof value === "number"));
  } catch {
    return [];
  }
}

function describe(environment: PackagedEnvironment) {
  const { code: _code, ...rest } = environment;
  return rest;
}

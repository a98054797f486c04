import { readFileSync } from "node:fs";
import type { PackagedEnvironment } from "../../../shared/envExport.js";
import { resourcePath } from "../../paths.js";
import { loadPrompt } from "../../util/renderTemplate.js";
import type { PackageFile } from "./EnvPackageWriter.js";
import { environmentKind } from "./environmentKind.js";

/** The runtime's modules (resources/exports/runtime) and what environment code may import (resources/python/spade_env.py). */
const RUNTIME_MODULES = ["__init__.py", "game.py", "process.py", "worker.py"];

/**
 * The `spade_runtime` folder of a package: the runtime that plays the environment with the
 * workbench's rules, `ToolUseBaseEnv`, the environment's code (`game_code.py`, read as text) and
 * `game.json` (class, kind, hint, turn limit, the first turn's framing, the tool-use system prompt, origin).
 */
export function runtimeFiles(into: string, environment: PackagedEnvironment): PackageFile[] {
  const files: PackageFile[] = RUNTIME_MODULES.map((name) => ({ path: `${into}/${name}`, bytes: readFileSync(resourcePath("exports", "runtime", name)) }));
  files.push({ path: `${into}/spade_env.py`, bytes: readFileSync(resourcePath("python", "spade_env.py")) });
  files.push({ path: `${into}/game_code.py`, bytes: Buffer.from(environment.code.endsWith("\n") ? environment.code : `${environment.code}\n`) });
  const metadata = {
    className: environment.className,
    kind: environmentKind(environment.code),
    hint: environment.hint,
    maxTurns: environment.maxTurns,
    firstTurnTemplate: loadPrompt("agent-first-turn.md"),
    toolSystemTemplate: loadPrompt("agent-tool.md"),
    skill: environment.skill,
    source: environment.source,
    runId: environment.runId,
    iteration: environment.iteration,
    winRate: environment.winRate,
    hintWinRate: environment.hintWinRate,
    regret: environment.regret,
  };
  files.push({ path: `${into}/game.json`, bytes: Buffer.from(`${JSON.stringify(metadata, null, 2)}\n`) });
  return files;
}

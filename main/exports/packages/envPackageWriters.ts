import type { EnvPackageFormat } from "../../../shared/envExport.js";
import type { EnvPackageWriter } from "./EnvPackageWriter.js";
import { gameFilesWriter } from "./gameFilesWriter.js";
import { pythonPackageWriter } from "./pythonPackageWriter.js";

/** One writer per format, chosen by `spade envs export --format`. */
export const envPackageWriters: Record<EnvPackageFormat, EnvPackageWriter> = {
  openenv: pythonPackageWriter("openenv", "spade_runtime"),
  verifiers: pythonPackageWriter("verifiers", "{module}/spade_runtime"),
  gem: pythonPackageWriter("gem", "{module}/spade_runtime"),
  "game-files": gameFilesWriter,
};

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EnvPackageFormat, EnvPackageManifest, PackagedEnvironment } from "../../../shared/envExport.js";
import { envPackageWriters } from "./envPackageWriters.js";

export interface EnvPackageExportOptions {
  format: EnvPackageFormat;
  /** The folder written (created when missing; files of the same names are replaced). */
  outDir: string;
  /** Recorded in the manifest. Defaults to "". */
  dbLabel?: string;
  /** Recorded in the manifest: what was selected. Defaults to "workspace". */
  selection?: string;
}

/** Nothing matched the selection: an export without environments is refused rather than written empty. */
export class NoEnvironmentsToExportError extends Error {
  override readonly name = "NoEnvironmentsToExportError";
}

/**
 * The one entry point of `spade envs export --format`: the format's writer turns the
 * environments into files, written under `outDir` with a `manifest.json` (every package and file,
 * with its sha256).
 */
export function exportEnvironmentPackages(environments: readonly PackagedEnvironment[], options: EnvPackageExportOptions): EnvPackageManifest {
  if (environments.length === 0) throw new NoEnvironmentsToExportError(`no environments match ${options.selection ?? "the workspace"}: nothing to export`);
  const earlier = (path: string) => {
    const full = join(options.outDir, path);
    return existsSync(full) ? readFileSync(full, "utf8") : null;
  };
  const { files, packages } = envPackageWriters[options.format].write(environments, earlier);
  for (const file of files) {
    const path = join(options.outDir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.bytes);
  }
  const written: EnvPackageManifest = {
    format: options.format,
    createdAt: new Date().toISOString(),
    db: options.dbLabel ?? "",
    selection: options.selection ?? "workspace",
    packages: packages.map(({ path, environment }) => ({ path, className: environment.className, source: environment.source })),
    files: files.map((file) => ({ path: file.path, bytes: file.bytes.length, sha256: createHash("sha256").update(file.bytes).digest("hex") })),
  };
  const manifest = withEarlierPackages(written, readManifest(join(options.outDir, "manifest.json")));
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** The manifest an earlier export of the same folder wrote, or null (none, unreadable, or not a manifest). */
function readManifest(path: string): EnvPackageManifest | null {
  if (!existsSync(path)) return null;
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<EnvPackageManifest>;
    return Array.isArray(parsed.packages) && Array.isArray(parsed.files) && typeof parsed.format === "string" ? (parsed as EnvPackageManifest) : null;
  } catch {
    return null;
  }
}

/**
 * An export into a folder that holds an earlier one of the same format keeps the earlier packages
 * in the manifest (their files are still there): entries of the same path are the new ones.
 */
function withEarlierPackages(written: EnvPackageManifest, earlier: EnvPackageManifest | null): EnvPackageManifest {
  if (earlier === null || earlier.format !== written.format) return written;
  const packages = new Set(written.packages.map((entry) => entry.path));
  const files = new Set(written.files.map((entry) => entry.path));
  return {
    ...written,
    selection: earlier.selection === written.selection ? written.selection : `${earlier.selection}; ${written.selection}`,
    packages: [...earlier.packages.filter((entry) => !packages.has(entry.path)), ...written.packages],
    files: [...earlier.files.filter((entry) => !files.has(entry.path)), ...written.files],
  };
}

import type { EnvPackageFormat, PackagedEnvironment } from "../../../shared/envExport.js";

/** One file of an export, its path relative to the export folder. */
export interface PackageFile {
  path: string;
  bytes: Buffer;
}

/** What one environment became: the folder (or file) holding it. */
export interface WrittenPackage {
  path: string;
  environment: PackagedEnvironment;
}

/** One export format: turns the selected environments into the files its ecosystem expects. */
export interface EnvPackageWriter {
  format: EnvPackageFormat;
  /** `earlier`: a file an earlier export left in the folder (its text), or null; a writer whose index file lists the games keeps the earlier ones. */
  write(environments: readonly PackagedEnvironment[], earlier?: (path: string) => string | null): { files: PackageFile[]; packages: WrittenPackage[] };
}

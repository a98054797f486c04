// `npm ci` on the Node version the README names prints no engine warning: every package in the
// lockfile accepts it, and package.json's own `engines` says the same version.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

interface LockPackage {
  version?: string;
  engines?: Record<string, string> | string[];
}

/** The Node range a package declares: the object form `{ node }` or the old array form `["node >=x"]`. */
function nodeRange(engines: LockPackage["engines"]): string | null {
  if (!engines) return null;
  if (Array.isArray(engines)) return engines.find((entry) => entry.trim().startsWith("node"))?.trim().replace(/^node\s*/, "") ?? null;
  return engines.node ?? null;
}

describe("Node version", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const match = /^Node (\d+\.\d+)\+/m.exec(readme);
  const version = `${match?.[1]}.0`;

  it("is named by the README and by package.json's engines", () => {
    expect(match, "the README's 'Node X.Y+' line").not.toBeNull();
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { engines: { node: string } };
    expect(semver.minVersion(pkg.engines.node)?.version).toBe(version);
  });

  it("is accepted by every package of the lockfile (npm ci warns of none)", () => {
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockPackage> };
    const refusing = Object.entries(lock.packages).flatMap(([path, info]) => {
      const range = nodeRange(info.engines);
      return range !== null && !semver.satisfies(version, range) ? [`${path.replace(/^node_modules\//, "")}@${info.version}: node ${range}`] : [];
    });
    expect(refusing).toEqual([]);
  });
});

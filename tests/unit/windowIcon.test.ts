import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { windowIconPath } from "../../electron/windowIcon.js";

describe("the Electron window's icon", () => {
  it("is the packed app icon, a PNG", () => {
    const root = join(import.meta.dirname, "..", "..");
    const bytes = readFileSync(windowIconPath(root));
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(windowIconPath(root)).toBe(join(root, "resources", "icons", "icon.png"));
  });
});

// The trainer's Python is found in the documented order (README "Training inside the run").
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseTrainerPython, managedPythonDir, venvPython } from "../../main/training/resolveTrainerPython.js";

const home = "/home/ada";
const managed = join(home, ".spade-workbench", "python", "bin", "python");

function choose(opts: { configured?: string; spadePython?: string; files?: string[]; torch?: string[] }) {
  const files = new Set(opts.files ?? []);
  const torch = new Set(opts.torch ?? []);
  return chooseTrainerPython({
    configured: opts.configured ?? null,
    env: { HOME: home, ...(opts.spadePython ? { SPADE_PYTHON: opts.spadePython } : {}) },
    exists: (path) => files.has(path),
    importsTorch: (python) => torch.has(python),
    platform: "linux",
  });
}

describe("chooseTrainerPython", () => {
  const everything = { spadePython: "/opt/py/bin/python", files: [managed, "/usr/bin/python3"], torch: ["python3", "/usr/bin/python3"] };

  it("takes training.python first, as given, before everything else", () => {
    expect(choose({ ...everything, configured: "/srv/venv/bin/python" })).toEqual({ python: "/srv/venv/bin/python", source: "training.python" });
  });

  it("then SPADE_PYTHON", () => {
    expect(choose(everything)).toEqual({ python: "/opt/py/bin/python", source: "SPADE_PYTHON" });
  });

  it("then the managed environment ~/.spade-workbench/python when it exists", () => {
    expect(choose({ ...everything, spadePython: undefined })).toEqual({ python: managed, source: "managed" });
    expect(managedPythonDir({ HOME: home })).toBe(join(home, ".spade-workbench", "python"));
    expect(venvPython("/x", "win32")).toBe(join("/x", "Scripts", "python.exe"));
  });

  it("then a python3 on PATH only when it imports torch, then Debian's /usr/bin/python3", () => {
    expect(choose({ files: ["/usr/bin/python3"], torch: ["python3", "/usr/bin/python3"] })).toEqual({ python: "python3", source: "PATH" });
    expect(choose({ files: ["/usr/bin/python3"], torch: ["/usr/bin/python3"] })).toEqual({ python: "/usr/bin/python3", source: "debian" });
  });

  it("falls back to python3 (the check then says what is missing) when nothing imports torch", () => {
    expect(choose({ files: ["/usr/bin/python3"] })).toEqual({ python: "python3", source: "fallback" });
  });
});

// The validity rule: the reference's checks decide; this project's extra checks are warnings unless
// the deviation `validator.strict` is on. Config, badge, the CLI's text, the UI's rows and markers,
// and what the store reads back for reports and the run diagnosis.
import { describe, expect, it } from "vitest";
import type { ValidationReport } from "../../shared/environment.js";
import { parseRunConfig } from "../../shared/runConfig.js";
import { formatValidationReport } from "../../main/cli/commands/envReport.js";
import { describeAblations } from "../../main/selfplay/describeAblations.js";
import { openDatabase } from "../../main/store/openDatabase.js";
import { insertEnvironment } from "../../main/store/queries/environments.js";
import { createRun } from "../../main/store/queries/runs.js";
import { listAttemptOutcomes, listValidationWarnings } from "../../main/store/queries/uiQueries.js";
import { ValidationRun } from "../../main/validator/ValidationRun.js";
import { prepareValidationChecks } from "../../renderer/src/features/environments/lib/prepareValidationChecks.js";
import { validationMarkers } from "../../renderer/src/features/environments/lib/validationMarkers.js";

const base = { db: "ws.sqlite", backend: { kind: "llama", modelPath: "m.gguf" }, corpus: null };

/** A valid report whose `reward_range` and `solution` checks failed as warnings. */
const warned: ValidationReport = {
  valid: true,
  className: "GridEnv",
  error: null,
  durationMs: 12,
  checks: [
    { name: "reset_42", ok: true, detail: "reset(seed=42) returned a 40-character observation and an info dict" },
    { name: "reward_range", ok: false, detail: "step(\"\\boxed{1}\") gave a reward of 5; rewards should stay in [-1, 1]", warning: true },
    { name: "solution", ok: false, detail: "solution() returned an empty string", line: 12, warning: true },
  ],
};

describe("validator.strict", () => {
  it("is off by default (the reference's rule), a deviation with a badge when on, and refused when not a boolean", () => {
    expect(parseRunConfig(base, "run.json").validator).toEqual({ strict: false });
    const strict = parseRunConfig({ ...base, validator: { strict: true } }, "run.json");
    expect(strict.validator).toEqual({ strict: true });
    const notLora = (badges: string[]) => badges.filter((badge: string) => !badge.startsWith("deviation: LoRA"));
    expect(notLora(describeAblations(strict))).toEqual(["no corpus", "deviation: strict validator"]);
    expect(notLora(describeAblations(parseRunConfig(base, "run.json")))).toEqual(["no corpus"]);
    expect(() => parseRunConfig({ ...base, validator: { strict: "yes" } }, "run.json")).toThrow(/run\.json: validator\.strict: expected true or false, got "yes"/);
    expect(() => parseRunConfig({ ...base, validator: { strickt: true } }, "run.json")).toThrow(/validator/);
    // A stored config reads back as itself.
    expect(parseRunConfig(strict, "stored").validator).toEqual({ strict: true });
  });

  it("keeps a failed extra check as a warning that does not invalidate, and as a failure under strict", async () => {
    const extra = new Set(["reward_range"]);
    const lenient = new ValidationRun({ extraChecks: extra });
    lenient.pass("reset_42", "ok");
    await lenient.check("reward_range", async () => {
      throw new Error("reward of 5");
    });
    expect(lenient.failed).toBe(false);
    expect(lenient.report()).toMatchObject({ valid: true, error: null, checks: [{ ok: true }, { name: "reward_range", ok: false, warning: true }] });
    lenient.fail("step_probes", "step() raised ValueError");
    expect(lenient.report()).toMatchObject({ valid: false, error: "step() raised ValueError" });

    const strict = new ValidationRun({ extraChecks: extra, strict: true });
    await strict.check("reward_range", async () => {
      throw new Error("reward of 5");
    });
    expect(strict.report()).toMatchObject({ valid: false, error: "reward of 5" });
    expect(strict.report().checks[0]).not.toHaveProperty("warning");
  });
});

describe("showing warnings apart from failures", () => {
  it("prints WARN lines and the warning count in spade env validate's text", () => {
    const text = formatValidationReport("grid.py", warned);
    expect(text.split("\n")[0]).toBe("grid.py: VALID (GridEnv), 2 warnings in 12 ms");
    expect(text).toMatch(/\n {2}PASS {2}reset_42 /);
    expect(text).toMatch(/\n {2}WARN {2}reward_range {2}step\("\\boxed\{1\}"\) gave a reward of 5/);
    expect(text).toMatch(/\n {2}WARN {2}solution {6}solution\(\) returned an empty string \[line 12\]/);
    expect(text).not.toContain("FAIL");
    const invalid = formatValidationReport("bad.py", { ...warned, valid: false, error: "boom", checks: [{ name: "step_probes", ok: false, detail: "boom" }] });
    expect(invalid).toContain("bad.py: INVALID (GridEnv) in 12 ms");
    expect(invalid).toContain("FAIL  step_probes  boom");
  });

  it("gives the validation panel a warning status and sign, and the verdict its count", () => {
    const prepared = prepareValidationChecks(warned);
    expect(prepared).toMatchObject({ verdict: "valid with 2 warnings", valid: true, warnings: 2 });
    expect(prepared.rows.map((row) => [row.name, row.status, row.symbol])).toEqual([
      ["reset_42", "pass", "✓"],
      ["reward_range", "warning", "⚠"],
      ["solution", "warning", "⚠"],
    ]);
    const failed = prepareValidationChecks({ ...warned, valid: false, checks: [{ name: "reset_42", ok: false, detail: "empty" }] });
    expect(failed).toMatchObject({ verdict: "invalid", warnings: 0, rows: [{ status: "fail", symbol: "✗" }] });
    expect(prepareValidationChecks({ ...warned, checks: [warned.checks[0]!] }).verdict).toBe("valid");
  });

  it("marks warnings in the editor as warnings, failures as errors", () => {
    const markers = validationMarkers({ ...warned, checks: [...warned.checks, { name: "step_probes", ok: false, detail: "boom", line: 3 }] }, 20);
    expect(markers).toEqual([
      { line: 1, message: "reward_range: " + warned.checks[1]!.detail, severity: "warning" },
      { line: 12, message: "solution: solution() returned an empty string", severity: "warning" },
      { line: 3, message: "step_probes: boom", severity: "error" },
    ]);
  });

  it("lists an environment's stored warnings for the report, and never takes a warning for the failing check", () => {
    const db = openDatabase(":memory:");
    const run = createRun(db, {});
    const valid = insertEnvironment(db, { runId: run.id, source: "designer", code: "class GridEnv: pass", valid: true, validation: warned });
    const invalidReport: ValidationReport = { ...warned, valid: false, error: "boom", checks: [...warned.checks, { name: "reset_123", ok: false, detail: "boom" }] };
    const invalid = insertEnvironment(db, { runId: run.id, source: "designer", code: "class GridEnv: pass", valid: false, validation: invalidReport, validationError: "boom" });
    expect(listValidationWarnings(db, valid)).toEqual([`reward_range: ${warned.checks[1]!.detail}`, "solution: solution() returned an empty string"]);
    expect(listValidationWarnings(db, 9999)).toEqual([]);
    const outcomes = listAttemptOutcomes(db, run.id, 10);
    expect(outcomes.find((o) => !o.valid)).toEqual({ valid: false, error: "boom", failedCheck: "reset_123" });
    expect(outcomes.find((o) => o.valid)).toEqual({ valid: true, error: null, failedCheck: null });
    expect(invalid).toBeGreaterThan(valid);
    db.close();
  });
});

import { describe, expect, it } from "vitest";
import { defaultExportDir, exportFormatChoices, prepareExportRequest } from "../../../renderer/src/features/environments/lib/prepareExportRequest.js";
import { envPackageFormats } from "../../../shared/envExport.js";

describe("prepareExportRequest (the Export… form)", () => {
  it("offers every format of spade envs export --format", () => {
    expect(exportFormatChoices.map((choice) => choice.format)).toEqual([...envPackageFormats]);
  });

  it("turns the form and its scope into the API request; a blank folder takes the engine's default", () => {
    expect(prepareExportRequest({ format: "gem", outDir: "  " }, { set: "pool" })).toEqual({ request: { format: "gem", set: "pool" } });
    expect(prepareExportRequest({ format: "openenv", outDir: " /tmp/out " }, { runId: 3 })).toEqual({ request: { format: "openenv", runId: 3, outDir: "/tmp/out" } });
    expect(defaultExportDir("verifiers")).toBe("exports/verifiers");
  });

  it("names what is wrong instead of sending a bad request", () => {
    expect(prepareExportRequest({ format: "gym", outDir: "" }, {})).toEqual({ error: "Choose a format: openenv, verifiers, gem, game-files." });
  });
});

// `npm run schema`: writes the run config's JSON Schema (generated from the zod schema) to
// resources/schemas/run-config.schema.json and beside the example configs, where editors find it
// through a config's "$schema".
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { exampleConfigSchemaPath, runConfigJsonSchemaText, runConfigSchemaPath } from "../../shared/runConfigJsonSchema.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
for (const path of [runConfigSchemaPath, exampleConfigSchemaPath]) {
  const target = join(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, runConfigJsonSchemaText());
  console.log(`wrote ${target}`);
}

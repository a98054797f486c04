// The JSON Schema of a run config as a user writes it, generated from the zod schema that parses
// it (so it never disagrees with `spade run`). `npm run schema` writes it to
// resources/schemas/run-config.schema.json and beside the example configs, which name it with
// `"$schema": "run-config.schema.json"`: copied together where the README says, the name resolves.
import * as z from "zod";
import { runConfigSchema } from "./runConfig.js";

/** Where the generated schema is committed, relative to the repository root. */
export const runConfigSchemaPath = "resources/schemas/run-config.schema.json";

/** The same schema beside the example configs, so their `"$schema"` (a bare file name) resolves in place and where they are copied with it. */
export const exampleConfigSchemaPath = "resources/examples/run-config.schema.json";

/** What an example config's `"$schema"` says: the schema's file name, found beside the config. */
export const exampleConfigSchemaRef = "run-config.schema.json";

/** The run config's JSON Schema (draft 2020-12), input side: defaults are left to the recipe. */
export function runConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(runConfigSchema, { io: "input", target: "draft-2020-12" });
  return { ...schema, title: "SPADE Workbench run config", description: "The JSON of `spade run --config`. Keys left out take the recipe's value (`recipe`, default \"spade-games\")." };
}

/** The schema file's text: two-space JSON and a final newline. */
export function runConfigJsonSchemaText(): string {
  return `${JSON.stringify(runConfigJsonSchema(), null, 2)}\n`;
}

import type { Migration } from "./Migration.js";

/**
 * The tools a tool-use play offered the model (OpenAI function schemas, JSON), so the training
 * exports can give TRL, ART and GRPO rows the `tools` list the model saw.
 */
export const episodeToolsMigration: Migration = {
  version: 7,
  name: "episode tools",
  up(db) {
    db.exec(`ALTER TABLE episodes ADD COLUMN tools TEXT;`);
  },
};

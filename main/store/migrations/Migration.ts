import type { WritableDb } from "../DatabaseHandle.js";

/** One numbered schema change. The runner applies it in a transaction and records `version`. */
export interface Migration {
  version: number;
  name: string;
  up(db: WritableDb): void;
}

import type { Migration } from "./Migration.js";
import { initialMigration } from "./001_initial.js";
import { sampledAdapterMigration } from "./002_sampledAdapter.js";
import { runOwnerStartMigration } from "./003_runOwnerStart.js";
import { trainingRoundsMigration } from "./004_trainingRounds.js";
import { rolloutScheduleMigration } from "./005_rolloutSchedule.js";
import { runControlMigration } from "./006_runControl.js";
import { episodeToolsMigration } from "./007_episodeTools.js";
import { replayMetricsMigration } from "./008_replayMetrics.js";

/** Every migration, in version order. Append new ones; never edit a released one. */
export const allMigrations: readonly Migration[] = [initialMigration, sampledAdapterMigration, runOwnerStartMigration, trainingRoundsMigration, rolloutScheduleMigration, runControlMigration, episodeToolsMigration, replayMetricsMigration];

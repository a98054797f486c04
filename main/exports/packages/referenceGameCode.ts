/**
 * A game's code as the reference's loader can run it: the reference registers the tool-use base
 * class only as the module `tool_use_base_env` (and injects `ToolUseBaseEnv` into the game's
 * namespace; spade/core/envs/synthetic_game_env.py `_load_game_from_code`), so imports of the
 * workbench's `spade_env` become imports of `tool_use_base_env`. Nothing else changes.
 */
export function referenceGameCode(code: string): string {
  return code
    .replace(/^([ \t]*)from[ \t]+spade_env[ \t]+import[ \t]/gm, "$1from tool_use_base_env import ")
    .replace(/^([ \t]*)import[ \t]+spade_env[ \t]+as[ \t]/gm, "$1import tool_use_base_env as ")
    .replace(/^([ \t]*)import[ \t]+spade_env[ \t]*$/gm, "$1import tool_use_base_env as spade_env");
}

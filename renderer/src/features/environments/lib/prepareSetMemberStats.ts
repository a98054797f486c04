// A set member's statistics for the set view: its plays across every run that played it; a member
// never played shows the statistics it was added with (from the run it came from), marked so.
import type { EnvSetMemberView } from "../../../../../shared/api/envSetTypes.js";
import { formatNumber, formatPercent } from "../../../lib/format/formatNumber.js";

export interface SetMemberStats {
  runs: string;
  plays: string;
  winRate: string;
  hintWinRate: string;
  regret: string;
  /** "plays" when measured from the member's plays, "added" when the set's stored values are shown. */
  basis: "plays" | "added";
}

export function prepareSetMemberStats(member: EnvSetMemberView): SetMemberStats {
  const played = member.played;
  if (played && played.plays + played.hintPlays > 0) {
    return {
      runs: String(played.runs),
      plays: `${played.plays} / ${played.hintPlays}`,
      winRate: formatPercent(played.winRate),
      hintWinRate: formatPercent(played.hintWinRate),
      regret: formatNumber(played.regret, 3),
      basis: "plays",
    };
  }
  return { runs: "0", plays: "0 / 0", winRate: formatPercent(member.winRate), hintWinRate: formatPercent(member.hintWinRate), regret: formatNumber(member.regret, 3), basis: "added" };
}

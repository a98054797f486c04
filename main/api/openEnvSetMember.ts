import * as store from "../store/index.js";
import { findUnattachedEnvironment, linkEnvSetMember } from "../store/queries/uiQueries.js";
import { NotFoundError } from "./NotFoundError.js";

/**
 * The stored environment for a set member: the one it came from, else one made from the member
 * (source "import", outside any run, with its hint) and linked to it, so the editor, the
 * validator and manual play work on imported sets as on a run's environments.
 */
export function openEnvSetMember(db: store.WritableDb, setName: string, codeSha256: string): number {
  const member = store.listEnvSetMembers(db, setName).find((m) => m.codeSha256 === codeSha256);
  if (!member) throw new NotFoundError(`environment set ${JSON.stringify(setName)} has no member ${codeSha256.slice(0, 12)}…`);
  if (member.environmentId !== null && store.getEnvironment(db, member.environmentId)) return member.environmentId;
  return store.transaction(db, () => {
    const existing = findUnattachedEnvironment(db, codeSha256);
    const envId =
      existing ??
      store.insertEnvironment(db, {
        source: "import",
        code: member.code,
        valid: true, // members are validated when imported
        runId: null,
        skill: member.skill,
        className: member.className,
        validation: null,
        validationError: null,
      });
    if (existing === null && member.hint !== null) store.insertHint(db, { environmentId: envId, source: "import", text: member.hint });
    linkEnvSetMember(db, setName, codeSha256, envId);
    return envId;
  });
}

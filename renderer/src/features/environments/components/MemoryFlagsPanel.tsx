import { useState } from "react";
import type { MemoryFlags } from "../../../../../shared/api/environmentTypes.js";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { useApi } from "../../../lib/api/ApiContext.js";

/** Pin, ban or add to memory: the curation of SPADE's environment memory. */
export function MemoryFlagsPanel({ envId, flags, valid }: { envId: number; flags: MemoryFlags | null; valid: boolean }) {
  const api = useApi();
  const [current, setCurrent] = useState<MemoryFlags | null>(flags);
  const [error, setError] = useState<Error | null>(null);
  async function change(update: Partial<MemoryFlags>) {
    setError(null);
    try {
      setCurrent(await api.setMemoryFlags({ envId, ...update }));
    } catch (err) {
      setError(err as Error);
    }
  }
  const f = current ?? { pinned: false, banned: false, inMemory: false };
  return (
    <div className="memory-flags" data-testid="memory-flags">
      <span className={f.inMemory ? "ok" : "muted"}>{f.inMemory ? "in memory" : "not in memory"}</span>
      {f.pinned && <span className="badge">pinned</span>}
      {f.banned && <span className="badge badge-failed">banned</span>}
      <button type="button" onClick={() => change({ pinned: !f.pinned })} disabled={!valid || f.banned}>
        {f.pinned ? "Unpin" : "Pin"}
      </button>
      <button type="button" onClick={() => change({ banned: !f.banned })}>
        {f.banned ? "Unban" : "Ban"}
      </button>
      {!f.inMemory && !f.banned && (
        <button type="button" onClick={() => change({ inMemory: true })} disabled={!valid}>
          Add to memory
        </button>
      )}
      {error && <ErrorBox error={error} />}
    </div>
  );
}

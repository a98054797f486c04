import { useState } from "react";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";

/** Opens an imported set member in the editor (the engine stores it as an environment on first use). */
export function OpenMemberButton({ set, codeSha256, label }: { set: string; codeSha256: string; label: string }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function open() {
    setBusy(true);
    setError(null);
    try {
      const { envId } = await api.openEnvSetMember({ set, codeSha256 });
      window.location.hash = routes.env(envId);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" className="link-button" onClick={open} disabled={busy} data-testid="open-member">
        {label}
      </button>
      {error && <span className="bad small"> {error}</span>}
    </>
  );
}

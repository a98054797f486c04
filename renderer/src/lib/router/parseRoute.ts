// The workbench's hash routes. They are a contract: tools and bookmarks rely on them.

export type Route =
  | { name: "runs"; cloneFrom?: number; fixedSet?: string }
  | { name: "run"; runId: number }
  | { name: "envs"; query: URLSearchParams }
  | { name: "env"; envId: number }
  | { name: "episode"; episodeId: number }
  | { name: "compare"; runIds: number[] }
  | { name: "corpus"; documentId: string | null }
  | { name: "models"; adapterId: number | null }
  | { name: "evaluations" }
  | { name: "settings" }
  | { name: "notFound"; hash: string };

function positiveInt(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 && Number.isSafeInteger(value) ? value : null;
}

/** Parses `#/runs`, `#/runs/<id>`, `#/envs`, `#/envs/<id>`, `#/episodes/<id>`, `#/compare?runs=a,b`, ... */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [pathPart = "", queryPart = ""] = raw.split("?", 2);
  const query = new URLSearchParams(queryPart);
  const parts = pathPart.split("/").filter(Boolean);
  const [head, second, ...rest] = parts;
  if (parts.length === 0) return { name: "runs" };
  if (rest.length > 0 && head !== "corpus") return { name: "notFound", hash };
  switch (head) {
    case "runs": {
      if (second === undefined) {
        const cloneFrom = positiveInt(query.get("clone") ?? undefined);
        const fixedSet = query.get("fixedSet");
        return { name: "runs", ...(cloneFrom ? { cloneFrom } : {}), ...(fixedSet ? { fixedSet } : {}) };
      }
      const runId = positiveInt(second);
      return runId ? { name: "run", runId } : { name: "notFound", hash };
    }
    case "envs": {
      if (second === undefined) return { name: "envs", query };
      const envId = positiveInt(second);
      return envId ? { name: "env", envId } : { name: "notFound", hash };
    }
    case "episodes": {
      const episodeId = positiveInt(second);
      return episodeId ? { name: "episode", episodeId } : { name: "notFound", hash };
    }
    case "compare": {
      if (second !== undefined) return { name: "notFound", hash };
      const runIds = (query.get("runs") ?? "").split(",").map((s) => positiveInt(s.trim())).filter((n): n is number => n !== null);
      return { name: "compare", runIds: [...new Set(runIds)] };
    }
    case "corpus":
      return { name: "corpus", documentId: second === undefined ? null : decodeURIComponent([second, ...rest].join("/")) };
    case "models":
      return second === undefined ? { name: "models", adapterId: positiveInt(query.get("adapter") ?? undefined) } : { name: "notFound", hash };
    case "evaluations":
    case "settings":
      return second === undefined ? { name: head } : { name: "notFound", hash };
    default:
      return { name: "notFound", hash };
  }
}

/** Links, so no view spells a route by hand. */
export const routes = {
  runs: () => "#/runs",
  /** The start form, filled with run `runId`'s config ("Clone run"). */
  cloneRun: (runId: number) => `#/runs?clone=${runId}`,
  /** The start form, set up for a fixed-pool run on an environment set. */
  fixedPoolRun: (set: string) => `#/runs?fixedSet=${encodeURIComponent(set)}`,
  run: (runId: number) => `#/runs/${runId}`,
  envs: (query?: Record<string, string | number | boolean | undefined>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== "") params.set(key, String(value));
    const text = params.toString();
    return text ? `#/envs?${text}` : "#/envs";
  },
  env: (envId: number) => `#/envs/${envId}`,
  episode: (episodeId: number) => `#/episodes/${episodeId}`,
  compare: (runIds: number[]) => `#/compare?runs=${runIds.join(",")}`,
  corpus: (documentId?: string) => (documentId ? `#/corpus/${encodeURIComponent(documentId)}` : "#/corpus"),
  /** `adapterId` opens that adapter's details. */
  models: (adapterId?: number) => (adapterId === undefined ? "#/models" : `#/models?adapter=${adapterId}`),
  evaluations: () => "#/evaluations",
};

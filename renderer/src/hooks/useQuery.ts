import { useCallback, useEffect, useRef, useState } from "react";

export interface QueryState<T> {
  data: T | undefined;
  error: Error | null;
  loading: boolean;
  /** Fetches again, keeping the current data on screen until the answer arrives. */
  reload: () => void;
}

/** Runs `load` when `key` changes; the latest answer wins (stale ones are dropped). */
export function useQuery<T>(key: string, load: () => Promise<T>): QueryState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: Error | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [generation, setGeneration] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    loadRef.current().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error: unknown) => current && setState((previous) => ({ data: previous.data, error: error instanceof Error ? error : new Error(String(error)), loading: false })),
    );
    return () => {
      current = false;
    };
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { ...state, reload };
}

import { useCallback, useEffect, useRef, useState } from "react";

export interface PagedRows<T> {
  total: number | null;
  error: Error | null;
  /** The row at `index`, or undefined while its page loads. */
  row: (index: number) => T | undefined;
  /** Asks for the rows in [start, end] (the visible window). */
  ensure: (start: number, end: number) => void;
}

/**
 * Rows fetched page by page as they come into view, so a list of 10,000 environments costs only
 * the pages the user scrolls past. `key` resets the cache (new filters).
 */
export function usePagedRows<T>(key: string, fetchPage: (offset: number, limit: number) => Promise<{ total: number; items: T[] }>, pageSize = 200): PagedRows<T> {
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [, setVersion] = useState(0);
  const pages = useRef(new Map<number, T[]>());
  const pending = useRef(new Set<number>());
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;
  const keyRef = useRef(key);

  const loadPage = useCallback(
    (page: number) => {
      if (pages.current.has(page) || pending.current.has(page)) return;
      pending.current.add(page);
      const forKey = keyRef.current;
      fetchRef.current(page * pageSize, pageSize).then(
        (result) => {
          if (keyRef.current !== forKey) return;
          pending.current.delete(page);
          pages.current.set(page, result.items);
          setTotal(result.total);
          setVersion((v) => v + 1);
        },
        (err: unknown) => {
          if (keyRef.current !== forKey) return;
          pending.current.delete(page);
          setError(err instanceof Error ? err : new Error(String(err)));
        },
      );
    },
    [pageSize],
  );

  useEffect(() => {
    keyRef.current = key;
    pages.current = new Map();
    pending.current = new Set();
    setTotal(null);
    setError(null);
    loadPage(0);
  }, [key, loadPage]);

  const ensure = useCallback(
    (start: number, end: number) => {
      for (let page = Math.floor(Math.max(0, start) / pageSize); page <= Math.floor(Math.max(0, end) / pageSize); page++) loadPage(page);
    },
    [loadPage, pageSize],
  );
  const row = useCallback((index: number) => pages.current.get(Math.floor(index / pageSize))?.[index % pageSize], [pageSize]);
  return { total, error, row, ensure };
}

export function Loading({ what }: { what: string }) {
  return <div className="loading">Loading {what}…</div>;
}

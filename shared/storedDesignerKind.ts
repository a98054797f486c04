// The designer kind of a stored run config, read without validating the whole config (a run stored
// by an older version still answers): the run page and the Compare page leave designer charts out
// of runs whose games no model designs.

/** The stored config's `designer.kind`; "llm" (the schema's default) when the config does not say. */
export function storedDesignerKind(config: unknown): string {
  const designer = config !== null && typeof config === "object" ? (config as { designer?: unknown }).designer : undefined;
  const kind = designer !== null && typeof designer === "object" ? (designer as { kind?: unknown }).kind : undefined;
  return typeof kind === "string" ? kind : "llm";
}

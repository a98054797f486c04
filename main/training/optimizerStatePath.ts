/**
 * Where the built-in trainers keep an adapter's optimiser state: beside it, `<name>.optim.pt`
 * (resources/trainers/step/spade_step.py `optimizer_state_path`). A round continues the state found
 * beside its parent adapter.
 */
export function optimizerStatePath(adapterPath: string): string {
  const path = adapterPath.replace(/[/\\]+$/, "");
  for (const suffix of [".gguf", "-peft"]) if (path.endsWith(suffix)) return `${path.slice(0, -suffix.length)}.optim.pt`;
  return `${path}.optim.pt`;
}

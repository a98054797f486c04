/** The command that starts one sandbox child, before an OS confinement layer wraps it. */
export interface ChildCommand {
  /** The runtime's executable (Node, or Electron running as Node). */
  executable: string;
  args: string[];
  /** Files and folders the child must be able to read; nothing else of the host is visible where the layer can hide it. */
  readOnlyPaths: string[];
  /** The child's whole environment. */
  env: Record<string, string>;
}

/** What to spawn: `extraInputs[i]` is written to the pipe at descriptor 4 + i (the protocol pipe is 3). */
export interface WrappedCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  extraInputs: Buffer[];
}

/**
 * One OS confinement layer around the sandbox child (bubblewrap on Linux, a sandbox-exec
 * profile on macOS, or none). The pool picks one at start-up (chooseConfinement) and wraps every
 * child command with it.
 */
export interface Confinement {
  /** "bubblewrap", "sandbox-exec" or "none". */
  readonly name: "bubblewrap" | "sandbox-exec" | "none";
  /** False for "none": generated code then runs only behind the in-process layers. */
  readonly confined: boolean;
  /** The layers this confinement adds, for people and logs. */
  readonly layers: string[];
  wrap(command: ChildCommand): WrappedCommand;
}

import type { ChildCommand, Confinement, WrappedCommand } from "./Confinement.js";

/** No OS layer: the child runs as a plain process (only with the user's explicit opt-in). */
export class NoConfinement implements Confinement {
  readonly name = "none";
  readonly confined = false;
  readonly layers: string[] = [];

  constructor(
    /** Why no OS layer is available, shown to the user. */
    readonly reason: string,
  ) {}

  wrap(command: ChildCommand): WrappedCommand {
    return { command: command.executable, args: command.args, env: command.env, extraInputs: [] };
  }
}

/** The port asked for is taken: the message names the option that picks another. */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(
    readonly port: number,
    /** The option that chooses the port, e.g. "--port". */
    readonly option: string,
  ) {
    super(`port ${port} on 127.0.0.1 is already in use (another \`spade serve\` or \`npm start\`?): stop it, or choose another port with ${option} <n> (${option} 0 takes any free port)`);
  }
}

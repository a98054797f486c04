/** `--help` was given: not an error; the CLI prints the command's usage and options and exits 0. */
export class HelpRequest extends Error {
  override readonly name = "HelpRequest";
  constructor(
    /** The command's words, e.g. "env validate". */
    readonly command: string,
    /** Its options, one per line, as `describeOptions` renders them. */
    readonly optionsText: string,
  ) {
    super(`spade ${command} --help`);
  }
}

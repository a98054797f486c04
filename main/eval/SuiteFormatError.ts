/** A suite file that cannot be read as a question suite: names the file, the line and what is wrong. */
export class SuiteFormatError extends Error {
  override readonly name = "SuiteFormatError";
}

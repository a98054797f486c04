/** Error classes whose meaning a person reads differently from the class name. */
const titles: Record<string, string> = {
  ApiInputError: "Invalid input",
  InputError: "Invalid input",
  NotFoundError: "Not found",
  RecordNotFoundError: "Not found",
  UnavailableError: "Not available",
  RunLockedError: "Run busy",
  ModelDownloadError: "Download failed",
  PromptTooLongError: "Prompt too long",
};

/**
 * The words an error box leads with: a plain title for the engine's named errors (never an
 * internal class name such as "ModelDownloadError"), "Error" for anything else.
 */
export function errorTitle(name: string | undefined): string {
  return (name && titles[name]) ?? "Error";
}

/** A call's input broke the contract: the message names the method, the field and what was expected. */
export class ApiInputError extends Error {
  override readonly name = "ApiInputError";
}

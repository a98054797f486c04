import type { WorkbenchEvent } from "../../../../shared/api/events.js";
import { methodNames } from "../../../../shared/api/methodTable.js";
import { ApiCallError } from "../../../../shared/api/wire.js";
import type { WorkbenchApi } from "../../../../shared/api/WorkbenchApi.js";
import type { Transport } from "./Transport.js";

/** The contract's methods (rejecting with ApiCallError on failure) plus event subscription. */
export type ApiClient = WorkbenchApi & {
  readonly transport: Transport["kind"];
  subscribe(listener: (event: WorkbenchEvent) => void): () => void;
};

export function createApiClient(transport: Transport): ApiClient {
  const client: Record<string, unknown> = {
    transport: transport.kind,
    subscribe: (listener: (event: WorkbenchEvent) => void) => transport.subscribe(listener),
  };
  for (const method of methodNames) {
    client[method] = async (input?: unknown) => {
      const reply = await transport.call(method, input ?? {});
      if (!reply.ok) throw new ApiCallError(reply.error.name, reply.error.message);
      return reply.result;
    };
  }
  return client as ApiClient;
}

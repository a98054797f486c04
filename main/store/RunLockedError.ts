/** Another live process is writing this run (its heartbeat is fresh): a second writer is refused. */
export class RunLockedError extends Error {
  override readonly name = "RunLockedError";
  constructor(
    readonly runId: number,
    readonly ownerPid: number,
    readonly heartbeatAgeMs: number,
  ) {
    super(
      `run ${runId} is being written by process ${ownerPid} (last heartbeat ${Math.round(heartbeatAgeMs / 1000)} s ago); ` +
        `stop that process first, or wait until its heartbeat is stale`,
    );
  }
}

import type { WorkbenchEvent } from "../../shared/api/events.js";

export type EventListener = (event: WorkbenchEvent) => void;

/** Fans engine events out to every transport listening (IPC windows, WebSocket clients). */
export class EventHub {
  readonly #listeners = new Set<EventListener>();

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: WorkbenchEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // One broken listener (a closed socket) must not starve the others.
      }
    }
  }

  get size(): number {
    return this.#listeners.size;
  }
}

// The ui benchmark's stopwatch, run inside the page.

export interface Wanted {
  selector: string;
  /** The element's exact text, when it matters. */
  text?: string;
}

export interface TimedAction {
  /** "hash": in-app navigation to `target`; "scrollEnd": scroll the element `target` to its end. */
  action: "hash" | "scrollEnd";
  target: string;
  /** Done when every one of these is in the DOM. */
  wanted: Wanted[];
}

type PageElement = { textContent: string | null; scrollHeight: number; scrollTo(options: { top: number }): void };
type PageGlobals = {
  document: { querySelector(selector: string): PageElement | null };
  location: { hash: string };
  performance: { now(): number };
  requestAnimationFrame(callback: () => void): number;
};

/**
 * Runs in the page (self-contained: it is serialised): times an in-app action on the page's own
 * clock, from just before it to the first animation frame in which everything wanted is in the
 * DOM (committed, about to be painted). The driver's round trips are not counted.
 */
export function timeInPage({ action, target, wanted }: TimedAction): Promise<number> {
  const page = globalThis as unknown as PageGlobals;
  const start = page.performance.now();
  if (action === "hash") page.location.hash = target;
  else {
    const element = page.document.querySelector(target);
    if (!element) throw new Error(`no element ${target} to scroll`);
    element.scrollTo({ top: element.scrollHeight });
  }
  return new Promise((resolve, reject) => {
    const check = () => {
      const done = wanted.every((want) => {
        const element = page.document.querySelector(want.selector);
        return element !== null && (want.text === undefined || element.textContent === want.text);
      });
      if (done) resolve(page.performance.now() - start);
      else if (page.performance.now() - start > 60_000) reject(new Error(`still waiting for ${JSON.stringify(wanted)} after 60 s`));
      else page.requestAnimationFrame(check);
    };
    page.requestAnimationFrame(check);
  });
}

import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef } from "react";
import { formatNumber } from "../../../lib/format/formatNumber.js";
import type { ReplayStep } from "../lib/prepareReplay.js";

const ROW_HEIGHT = 24;

const TurnRow = memo(function TurnRow({ step, active, onSelect }: { step: ReplayStep; active: boolean; onSelect: (index: number) => void }) {
  return (
    <button type="button" className={active ? "turn-row active" : "turn-row"} onClick={() => onSelect(step.index)} data-turn={step.index}>
      <span className="t-step">{step.index + 1}</span>
      <span className="t-action">{step.action ?? "(none)"}</span>
      <span className="t-reward">{formatNumber(step.reward, 2)}</span>
      <span className={step.end ? `t-end tone-${step.end.tone}` : "t-end"}>{step.end?.label ?? ""}</span>
    </button>
  );
});

/** Every step of the episode in a virtualised list (only the visible rows exist); follows the slider. */
export function TurnList({ steps, current, onSelect }: { steps: ReplayStep[]; current: number; onSelect: (index: number) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: steps.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  // Keep the current row in view: a plain scrollTop change, only when it is outside the window.
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const top = current * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight) element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  }, [current]);
  return (
    <div className="turn-list" ref={scroller} data-testid="turn-list">
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const step = steps[item.index];
          return step ? (
            <div key={item.key} style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${item.start}px)` }}>
              <TurnRow step={step} active={item.index === current} onSelect={onSelect} />
            </div>
          ) : null;
        })}
      </div>
    </div>
  );
}

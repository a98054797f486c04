import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import type { ReactNode } from "react";
import type { EnvironmentFilter, EnvironmentListItem, EnvironmentOrder } from "../../../shared/api/environmentTypes.js";
import { usePagedRows } from "../hooks/usePagedRows.js";
import { useApi } from "../lib/api/ApiContext.js";
import { attemptLabel, failureReason } from "../lib/environments/attemptLabels.js";
import { memoryLabel } from "../lib/environments/memoryLabel.js";
import { formatNumber, formatPercent } from "../lib/format/formatNumber.js";
import { routes } from "../lib/router/parseRoute.js";
import { ErrorBox } from "./ErrorBox.js";
import { plainText } from "../lib/format/splitInlineCode.js";
import { TextWithCode } from "./TextWithCode.js";

const ROW_HEIGHT = 30;

function Row({ item, above }: { item: EnvironmentListItem; above: EnvironmentListItem | null }) {
  const label = attemptLabel(item, above);
  const reason = failureReason(item);
  return (
    <a className={label.groupStart ? "env-row group-start" : "env-row"} href={routes.env(item.id)} data-env-id={item.id}>
      <span className="c-id">#{item.id}</span>
      <span className="c-run">{item.runId === null ? "–" : `#${item.runId}`}</span>
      <span className="c-it">{item.iteration ?? "–"}</span>
      <span className="c-slot" title={label.slot}>
        {label.slot}
      </span>
      <span className="c-name" title={item.className ?? undefined}>
        {item.className ?? <em>no class</em>}
      </span>
      <span className="c-skill" title={item.skill ?? undefined}>
        {item.skill ?? "–"}
      </span>
      <span className={item.valid ? "c-valid ok" : "c-valid bad"} title={item.validationError ? plainText(item.validationError) : undefined}>
        {item.valid ? "valid" : "invalid"}
      </span>
      <span className="c-reason" title={item.validationError ? plainText(item.validationError) : undefined} data-testid={reason ? "failure-reason" : undefined}>
        <TextWithCode text={reason} />
      </span>
      <span className="c-nov">{item.novelty ?? "–"}</span>
      <span className="c-mem" data-testid="memory-state" title={memoryLabel(item)}>
        {memoryLabel(item)}
      </span>
      <span className="c-num">{formatPercent(item.winRate)}</span>
      {item.hintSkipped ? (
        <span className="c-num bad" title={`hinted plays skipped: ${plainText(item.hintSkipped)}`} data-testid="hint-skipped">
          skipped
        </span>
      ) : (
        <span className="c-num">{formatPercent(item.hintWinRate)}</span>
      )}
      <span className="c-num">{formatNumber(item.regret, 3)}</span>
      <span className="c-num">{formatNumber(item.designerReward, 3)}</span>
    </a>
  );
}

/** The orders that sort ascending (the engine's order map); the others put the largest first. */
const ascendingOrders = new Set<EnvironmentOrder>(["oldest", "slot", "skill"]);

/** A column head; a link that sorts by the column when `sortHref` is given. */
function Head({ className, order, filter, sortHref, children }: { className: string; order?: EnvironmentOrder; filter: EnvironmentFilter; sortHref?: (order: EnvironmentOrder) => string; children: ReactNode }) {
  if (!order || !sortHref) return <span className={className}>{children}</span>;
  const active = (filter.order ?? "oldest") === order;
  const ascending = ascendingOrders.has(order);
  return (
    <a className={active ? `${className} sort active` : `${className} sort`} href={sortHref(order)} title={`sort by ${String(children)}`} aria-sort={active ? (ascending ? "ascending" : "descending") : undefined}>
      {children}
      {active ? (ascending ? " ▴" : " ▾") : ""}
    </a>
  );
}

/**
 * A virtualised, page-on-demand table of environments matching `filter`. `sortHref` makes the
 * sortable column heads links to the same list in that order.
 */
export function EnvironmentTable({ filter, height = 480, sortHref }: { filter: EnvironmentFilter; height?: number; sortHref?: (order: EnvironmentOrder) => string }) {
  const api = useApi();
  const key = JSON.stringify(filter);
  const rows = usePagedRows(key, (offset, limit) => api.listEnvironments({ ...filter, offset, limit }));
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: rows.total ?? 0, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 20 });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => rows.ensure(first, last), [rows, first, last]);

  if (rows.error) return <ErrorBox error={rows.error} />;
  return (
    <div className="env-table">
      <div className="env-row env-head">
        <Head className="c-id" order="oldest" filter={filter} sortHref={sortHref}>
          id
        </Head>
        <Head className="c-run" order="run" filter={filter} sortHref={sortHref}>
          run
        </Head>
        <span className="c-it">iter</span>
        <Head className="c-slot" order="slot" filter={filter} sortHref={sortHref}>
          slot
        </Head>
        <span className="c-name">class</span>
        <Head className="c-skill" order="skill" filter={filter} sortHref={sortHref}>
          skill
        </Head>
        <span className="c-valid">valid</span>
        <span className="c-reason">failure reason</span>
        <span className="c-nov">novelty</span>
        <Head className="c-mem" order="memory" filter={filter} sortHref={sortHref}>
          memory
        </Head>
        <Head className="c-num" order="winRate" filter={filter} sortHref={sortHref}>
          win
        </Head>
        <span className="c-num">hint win</span>
        <Head className="c-num" order="regret" filter={filter} sortHref={sortHref}>
          regret
        </Head>
        <Head className="c-num" order="designerReward" filter={filter} sortHref={sortHref}>
          reward
        </Head>
      </div>
      <div className="env-scroll" ref={scroller} style={{ height }} data-testid="env-scroll" data-total={rows.total ?? ""}>
        {rows.total === 0 && <div className="empty">No environments match.</div>}
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {items.map((virtual) => {
            const item = rows.row(virtual.index);
            return (
              <div key={virtual.key} className="env-slot" style={{ position: "absolute", top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${virtual.start}px)` }} data-index={virtual.index}>
                {item ? <Row item={item} above={virtual.index > 0 ? (rows.row(virtual.index - 1) ?? null) : null} /> : <span className="env-row pending">…</span>}
              </div>
            );
          })}
        </div>
      </div>
      <div className="table-foot">{rows.total === null ? "loading…" : `${rows.total} environments`}</div>
    </div>
  );
}

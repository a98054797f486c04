/** A labelled bar; `fraction` null shows an indeterminate bar. */
export function ProgressBar({ label, fraction }: { label: string; fraction: number | null }) {
  const percent = fraction === null ? null : Math.round(Math.max(0, Math.min(1, fraction)) * 100);
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuenow={percent ?? undefined} aria-valuemin={0} aria-valuemax={100}>
      <div className="progress-label">
        {label}
        {percent !== null && <span> {percent}%</span>}
      </div>
      <div className="progress-track">
        <div className={percent === null ? "progress-fill indeterminate" : "progress-fill"} style={{ width: percent === null ? "30%" : `${percent}%` }} />
      </div>
    </div>
  );
}

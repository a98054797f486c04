import type { CorpusProblemView } from "../../../../../shared/api/corpusTypes.js";
import { routes } from "../../../lib/router/parseRoute.js";

/** The lines the runs' corpora left out (not documents), per run, so they are seen where the documents are. */
export function CorpusProblems({ problems }: { problems: CorpusProblemView[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="diagnosis corpus-problems" data-testid="corpus-problems" role="status">
      <strong>Lines left out of the corpus</strong> (not documents: invalid JSON, or no text field)
      <ul>
        {problems.map((problem) => (
          <li key={problem.runId}>
            <a href={routes.run(problem.runId)}>run {problem.runId}{problem.runName ? ` "${problem.runName}"` : ""}</a>: <span className="small">{problem.message}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

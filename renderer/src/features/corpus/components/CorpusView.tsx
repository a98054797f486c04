import { useState } from "react";
import { ErrorBox } from "../../../components/ErrorBox.js";
import { Loading } from "../../../components/Loading.js";
import { useQuery } from "../../../hooks/useQuery.js";
import { useApi } from "../../../lib/api/ApiContext.js";
import { routes } from "../../../lib/router/parseRoute.js";
import { countOf } from "../../../lib/format/countOf.js";
import { documentLabel } from "../lib/documentLabel.js";
import { CorpusProblems } from "./CorpusProblems.js";
import { DocumentPanel } from "./DocumentPanel.js";

/** `#/corpus[/<documentId>]`: the grounding documents used, and the environments they grounded. */
export function CorpusView({ documentId }: { documentId: string | null }) {
  const api = useApi();
  const [text, setText] = useState("");
  const [search, setSearch] = useState("");
  const list = useQuery(`docs:${search}`, () => api.listDocuments({ text: search || undefined, limit: 500 }));
  return (
    <section className="view corpus" data-testid="corpus-view">
      <h2>Corpus</h2>
      {list.data && <CorpusProblems problems={list.data.problems} />}
      <div className="corpus-columns">
        <div className="doc-list">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              setSearch(text.trim());
            }}
          >
            <input value={text} onChange={(e) => setText(e.target.value)} placeholder="search titles and text" aria-label="search documents" />
          </form>
          {list.error && <ErrorBox error={list.error} onRetry={list.reload} />}
          {!list.data && !list.error && <Loading what="documents" />}
          {list.data && (
            <>
              <div className="muted small">{list.data.total} documents</div>
              <ul>
                {list.data.items.map((doc) => (
                  <li key={doc.id} className={doc.id === documentId ? "active" : undefined}>
                    <a href={routes.corpus(doc.id)} title={doc.id} data-testid="document-link">
                      {documentLabel(doc)}
                    </a>
                    <span className="muted small"> · {countOf(doc.environments, "env")}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
        <div className="doc-detail">{documentId ? <DocumentPanel documentId={documentId} /> : <p className="empty">Pick a document.</p>}</div>
      </div>
    </section>
  );
}

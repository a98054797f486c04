import { lazy, Suspense } from "react";
import { Loading } from "./components/Loading.js";
import { Nav } from "./components/Nav.js";
import { CompareView } from "./features/compare/components/CompareView.js";
import { CorpusView } from "./features/corpus/components/CorpusView.js";
import { EnvListView } from "./features/environments/components/EnvListView.js";
import { ReplayView } from "./features/episodes/components/ReplayView.js";
import { EvaluationsView } from "./features/evaluations/components/EvaluationsView.js";
import { ModelsView } from "./features/models/components/ModelsView.js";
import { RunDetailView } from "./features/runs/components/RunDetailView.js";
import { RunsView } from "./features/runs/components/RunsView.js";
import { useRoute } from "./hooks/useRoute.js";
import type { Route } from "./lib/router/parseRoute.js";

// Monaco is large: the environment view loads it only when opened.
const EnvDetailView = lazy(() => import("./features/environments/components/EnvDetailView.js").then((m) => ({ default: m.EnvDetailView })));

function View({ route }: { route: Route }) {
  switch (route.name) {
    case "runs":
      return <RunsView key={`${route.cloneFrom ?? ""}:${route.fixedSet ?? ""}`} cloneFrom={route.cloneFrom ?? null} fixedSet={route.fixedSet ?? null} />;
    case "run":
      return <RunDetailView key={route.runId} runId={route.runId} />;
    case "envs":
      return <EnvListView query={route.query} />;
    case "env":
      return (
        <Suspense fallback={<Loading what="editor" />}>
          <EnvDetailView key={route.envId} envId={route.envId} />
        </Suspense>
      );
    case "episode":
      return <ReplayView key={route.episodeId} episodeId={route.episodeId} />;
    case "compare":
      return <CompareView key={route.runIds.join(",")} runIds={route.runIds} />;
    case "corpus":
      return <CorpusView documentId={route.documentId} />;
    case "models":
      return <ModelsView adapterId={route.adapterId} />;
    case "evaluations":
      return <EvaluationsView />;
    case "settings":
      // The old Settings page had nothing to set: its facts are on the Models page now.
      return <ModelsView adapterId={null} />;
    case "notFound":
      return (
        <section className="view">
          <h2>Not found</h2>
          <p>
            No view at <code>{route.hash}</code>. Try <a href="#/runs">#/runs</a>.
          </p>
        </section>
      );
  }
}

export function App() {
  const route = useRoute();
  return (
    <div className="app">
      <Nav route={route} />
      <main className="content">
        <View route={route} />
      </main>
    </div>
  );
}

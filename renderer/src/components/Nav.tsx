import type { Route } from "../lib/router/parseRoute.js";
import { routes } from "../lib/router/parseRoute.js";

const sections: { label: string; href: string; matches: Route["name"][] }[] = [
  { label: "Runs", href: routes.runs(), matches: ["runs", "run"] },
  { label: "Environments", href: routes.envs(), matches: ["envs", "env", "episode"] },
  { label: "Compare", href: routes.compare([]), matches: ["compare"] },
  { label: "Corpus", href: routes.corpus(), matches: ["corpus"] },
  { label: "Models", href: routes.models(), matches: ["models", "settings"] },
  { label: "Evaluations", href: routes.evaluations(), matches: ["evaluations"] },
];

export function Nav({ route }: { route: Route }) {
  return (
    <nav className="nav">
      <div className="brand">SPADE Workbench</div>
      {sections.map((section) => (
        <a key={section.label} href={section.href} className={section.matches.includes(route.name) ? "active" : undefined}>
          {section.label}
        </a>
      ))}
    </nav>
  );
}

// The page a browser sees without the token (an old bookmark, a copied address without its query).

/** The 401 page: styled like the workbench, saying how to get the tokened address again. */
export function unauthorizedPage(howToGetAddress: string): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>SPADE Workbench: token needed</title>
<style>
  :root { color-scheme: dark; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #0d1117; color: #e6edf3;
         font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
  main { max-width: 36rem; padding: 2rem 2.25rem; border: 1px solid #30363d; border-radius: 10px; background: #161b22; }
  h1 { margin: 0 0 .75rem; font-size: 1.25rem; }
  p { margin: .6rem 0; color: #c9d1d9; }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .9em; background: #0d1117;
         border: 1px solid #30363d; border-radius: 4px; padding: .05rem .35rem; }
  .status { color: #f0883e; font-weight: 600; letter-spacing: .03em; }
</style>
</head>
<body>
<main>
  <p class="status">401: this address needs its token</p>
  <h1>SPADE Workbench</h1>
  <p>The workbench only answers the address it printed when it started, which ends in <code>?token=…</code>.</p>
  <p>${escape(howToGetAddress)}</p>
</main>
</body>
</html>
`;
}

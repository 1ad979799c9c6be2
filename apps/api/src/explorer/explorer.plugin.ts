import fs from 'node:fs';
import path from 'node:path';

export interface ExplorerAsset {
  pkg: string;
  file: string;
  type: string;
}

/** Files the explorer page loads, all served by this app from npm packages (no CDN). */
export const EXPLORER_ASSETS: Record<string, ExplorerAsset> = {
  'react.js': { pkg: 'react', file: 'umd/react.production.min.js', type: 'text/javascript' },
  'react-dom.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript' },
  'graphiql.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript' },
  'graphiql.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css' },
};

/** Where `npm run build` puts copies of the files, so the build serves them without node_modules' browser bundles. */
export const BUNDLED_EXPLORER_ASSETS_DIR = path.join(__dirname, 'assets');

/** The build's copy when there is one, else the installed package's file (running from sources). */
export function explorerAssetPath(name: string, asset: ExplorerAsset): string {
  const bundled = path.join(BUNDLED_EXPLORER_ASSETS_DIR, name);
  if (fs.existsSync(bundled)) return bundled;
  return path.join(path.dirname(require.resolve(`${asset.pkg}/package.json`)), asset.file);
}

const EXAMPLE = `# Hindsight: postmortems as queryable knowledge.
query Incident {
  incident(slug: "stackegg-haproxy-session-cap-2015") {
    title
    started { at precision }
    timeline { asWritten precision text }
    causalFactors { key role text leadsTo { kind to { key } } }
    actionables { key title status references { kind ref url } }
  }
}
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Hindsight GraphQL explorer</title>
  <link rel="stylesheet" href="/explorer/assets/graphiql.css">
  <style>html, body, #explorer { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="explorer"><noscript>The explorer needs JavaScript. POST queries to /graphql with any HTTP client.</noscript></div>
  <script src="/explorer/assets/react.js"></script>
  <script src="/explorer/assets/react-dom.js"></script>
  <script src="/explorer/assets/graphiql.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    ReactDOM.createRoot(document.getElementById('explorer')).render(
      React.createElement(GraphiQL, { fetcher, defaultQuery: ${JSON.stringify(EXAMPLE)}, defaultEditorToolsVisibility: true }),
    );
  </script>
</body>
</html>`;

/** Replaces Apollo's landing page (which loads from a CDN) with GraphiQL served locally. */
export function explorerLandingPage() {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html: PAGE };
        },
      };
    },
  };
}

/**
 * The routes of `serve --http`: the manifest's templates as patterns (issue 16), and the list
 * printed when the server starts (issue 46), so a user sees which paths the model answers.
 */
import type { ManifestTool } from '../manifest/read.js';
import { templateParams } from '../manifest/paths.js';

export interface Route {
  tool: ManifestTool;
  pattern: RegExp;
  params: string[];
  literal: number;
}

/** Templates as patterns, most literal first: `/posts/new` wins over `/posts/{id}`. */
export function routesOf(tools: readonly ManifestTool[]): Route[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return tools
    .map((tool) => {
      const parts = tool.template.split(/\{[^}]+\}/);
      return {
        tool,
        params: templateParams(tool.template),
        literal: parts.join('').length,
        pattern: new RegExp('^' + parts.map(escape).join('([^/]+)') + '$'),
      };
    })
    .sort((a, b) => a.params.length - b.params.length || b.literal - a.literal);
}

/** The route of `method path`, with the pattern's match (its groups are the path parameters). */
export function matchRoute(routes: readonly Route[], method: string, path: string): { r: Route; m: RegExpExecArray } | undefined {
  for (const r of routes) {
    if (r.tool.method.toUpperCase() !== method) continue;
    const m = r.pattern.exec(path);
    if (m) return { r, m };
  }
  return undefined;
}

/**
 * The start-up listing: one line per route (`GET    /posts/{id}   get_posts_by_id`), in
 * template order so a path's methods sit together.
 */
export function routeLines(tools: readonly ManifestTool[]): string[] {
  const sorted = [...tools].sort((a, b) => a.template.localeCompare(b.template) || a.method.localeCompare(b.method));
  const width = Math.max(0, ...sorted.map((t) => t.template.length));
  return sorted.map((t) => `${t.method.toUpperCase().padEnd(7)} ${t.template.padEnd(width)}  ${t.name}`);
}

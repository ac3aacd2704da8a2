/**
 * The rule views in PostgreSQL's dialect (issue 20, steps 3 and 7 of docs/postgres-plan.md):
 * the queries/*.sql text itself, with the few SQLite-only words rewritten by the named rules
 * below, so no rule is written twice. Each rule is a plain text rewrite of a construct the
 * views use in one form only; test/postgres-views.test.ts holds each to its examples, and a
 * view that still uses a construct no rule covers fails loudly on PostgreSQL, not silently.
 * The list is in docs/decisions.md ("The rule views on PostgreSQL").
 */

/** A SQLite GLOB pattern (the views only use literals) as an anchored POSIX regular expression. */
export function globToRegex(glob: string): string {
  let out = '^';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2); // a `]` right after `[` or `[^` is a member, as in SQLite
      if (end === -1) throw new Error(`capstate: unclosed [ in GLOB pattern '${glob}'`);
      out += glob.slice(i, end + 1);
      i = end;
    } else out += /[\\^$.|+(){}]/.test(c) ? `\\${c}` : c;
  }
  return out + '$';
}

interface Rule {
  name: string;
  says: string;
  apply(sql: string): string;
}

export const POSTGRES_VIEW_RULES: readonly Rule[] = [
  {
    name: 'no-index-hints',
    says: "`indexed by NAME` is SQLite's plan hint; PostgreSQL chooses its own index",
    apply: (sql) => sql.replace(/\s+indexed by [a-z_][a-z0-9_]*/gi, ''),
  },
  {
    name: 'join-order',
    says: "`cross join T a on …` is SQLite's way to keep a join order; PostgreSQL reads it as an inner join",
    apply: (sql) => sql.replace(/\bcross join ([a-z_][a-z0-9_]*(?: [a-z_][a-z0-9_]*)?)(\s+on)\b/gi, 'join $1$2'),
  },
  {
    name: 'instr',
    says: '`instr(a, b)` is `strpos(a, b)` (the position of b in a, 1-based, 0 when absent)',
    apply: (sql) => sql.replace(/\binstr\(/gi, 'strpos('),
  },
  {
    name: 'glob',
    says: "`x glob 'P'` is `x ~ 'R'` with R the anchored regular expression of P (case-sensitive in both)",
    apply: (sql) =>
      sql.replace(
        /\b(not\s+)?glob\s+'((?:[^']|'')*)'/gi,
        (_, not: string | undefined, p: string) => `${not ? '!~' : '~'} '${globToRegex(p.replace(/''/g, "'")).replace(/'/g, "''")}'`,
      ),
  },
  {
    name: 'key-kind',
    says: '`typeof(x.key)` on member_node, and `x.key = N` (an index), ask what `key_is_index` says (postgres-schema.ts)',
    apply: (sql) =>
      sql
        .replace(/\btypeof\(([a-z_][a-z0-9_]*)\.key\) = 'integer'/gi, '$1.key_is_index = 1')
        .replace(/\btypeof\(([a-z_][a-z0-9_]*)\.key\) = 'text'/gi, '$1.key_is_index = 0')
        // An index asked for by number (`e.key = 1`): SQLite matches the INTEGER key only.
        .replace(/\b([a-z_][a-z0-9_]*)\.key = ([0-9]+)\b/gi, "($1.key_is_index = 1 and $1.key = '$2')"),
  },
  {
    name: 'ordered-concat',
    says: "`group_concat(k.x, sep) from (… order by sort_key) k` orders the aggregate itself by k.sort_key: PostgreSQL does not promise the subquery's order to it",
    apply: (sql) =>
      sql.replace(
        /\bgroup_concat\(([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*), ('[^']*')\) from \(/gi,
        'string_agg($1.$2, $3 order by $1.sort_key) from (',
      ),
  },
  {
    name: 'group-concat',
    says: '`group_concat(x, sep)` is `string_agg(x, sep)` (a window orders its own input)',
    apply: (sql) => sql.replace(/\bgroup_concat\(/gi, 'string_agg('),
  },
];

/** A queries/*.sql text (a `create view` statement) in PostgreSQL's dialect. */
export function postgresView(sql: string): string {
  return POSTGRES_VIEW_RULES.reduce((s, r) => r.apply(s), sql);
}

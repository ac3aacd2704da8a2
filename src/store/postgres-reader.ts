/**
 * The read-only role `capstate sql` runs a statement as on a PostgreSQL store (issue 42):
 * `capstate_reader`, a role that cannot log in and may only read the store's schema. A
 * statement run as it cannot write, call the functions that reach the server's files or
 * programs (they are not granted to PUBLIC), or use sequences, whatever the store's own role
 * may do — the superuser that first ran `COPY … TO PROGRAM` through `sql` included.
 *
 * The role is made where the store's role may make roles (a superuser, or CREATEROLE), or
 * used where an administrator made it and granted it (`create role capstate_reader nologin;
 * grant capstate_reader to OWNER`). Elsewhere `sql` runs as the store's role, still in a
 * read-only transaction and through the statement check of postgres-sql.ts.
 */
import { ident, type PostgresStore } from './postgres-store.js';

export const READER_ROLE = 'capstate_reader';

interface Standing {
  exists: boolean;
  member: boolean;
  may_create: boolean;
  granted: boolean;
}

async function standing(store: PostgresStore): Promise<Standing> {
  const r = await store.client.query<Standing>(
    `
    select r.oid is not null as exists,
      coalesce(pg_has_role(current_user, r.oid, 'MEMBER'), false) as member,
      (select rolsuper or rolcreaterole from pg_roles where rolname = current_user) as may_create,
      r.oid is not null and has_schema_privilege(r.oid, n.oid, 'USAGE') and not exists (
        select 1 from pg_class c where c.relnamespace = n.oid and c.relkind in ('r', 'v', 'm', 'p')
          and not has_table_privilege(r.oid, c.oid, 'SELECT')) as granted
    from pg_namespace n left join pg_roles r on r.rolname = $1
    where n.nspname = $2`,
    [READER_ROLE, store.schema],
  );
  return r.rows[0] ?? { exists: false, member: false, may_create: false, granted: false };
}

/**
 * The read-only role's name once it exists, may be taken by this connection and may read
 * every table and view of the store's schema; null where it cannot be had. Runs before the
 * statement's transaction: making the role and granting it are writes to the catalog, each
 * its own transaction, and a second `sql` doing the same at once only finds it done.
 */
export async function asReader(store: PostgresStore): Promise<string | null> {
  const role = ident(READER_ROLE);
  const attempt = async (sql: string) => {
    await store.client.query(sql).catch(() => {});
  };
  let s = await standing(store);
  if (!s.exists && s.may_create) {
    await attempt(`create role ${role} nologin noinherit`);
    s = await standing(store);
  }
  if (s.exists && !s.member && s.may_create) {
    await attempt(`grant ${role} to current_user`);
    s = await standing(store);
  }
  if (s.exists && s.member && !s.granted) {
    // Only the owner of the tables (the store's role) or a superuser may grant; else no reader.
    await attempt(`grant usage on schema ${ident(store.schema)} to ${role}`);
    await attempt(`grant select on all tables in schema ${ident(store.schema)} to ${role}`);
    s = await standing(store);
  }
  return s.exists && s.member && s.granted ? READER_ROLE : null;
}

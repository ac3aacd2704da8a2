import { defineCommand } from 'citty';
import { openStore } from '../store/open.js';
import { dbArg, out } from './common.js';

export const args = { ...dbArg } as const;

export default defineCommand({
  meta: { name: 'migrate', description: 'Bring a store up to date: apply new migrations and rebuild the views from queries/' },
  args,
  run({ args: a }) {
    const db = openStore(a.db, { write: true });
    const version = db.pragma('user_version', { simple: true });
    db.close();
    out(`${a.db}: schema version ${version}, views up to date`);
  },
});

import { defineCommand } from 'citty';
import { refreshStoredStates } from '../ingest/store-state.js';
import { openStore } from '../store/open.js';
import { dbArg, log, out } from './common.js';

export const args = {
  ...dbArg,
  recompute: { type: 'boolean', description: 'Compute every capture\'s stored environment state again, even where it is up to date', default: false },
} as const;

export default defineCommand({
  meta: {
    name: 'migrate',
    description: 'Bring a store up to date: apply new migrations, rebuild the views from queries/, and recompute each stored environment state the views changed',
  },
  args,
  async run({ args: a }) {
    const db = openStore(a.db, { write: true });
    try {
      const version = db.pragma('user_version', { simple: true });
      // Issue 13: a state computed from other rule views (or none, in a store from before
      // migration 0003) is recomputed, one transaction per capture.
      const { computed, failed } = await refreshStoredStates(db, a.db, { all: a.recompute, log });
      const n = computed.length + failed.length;
      out(`${a.db}: schema version ${version}, views up to date, ` +
        (n === 0 ? 'stored states up to date' : `${n} stored state${n === 1 ? '' : 's'} recomputed${failed.length ? ` (${failed.length} could not be computed; see capstate state)` : ''}`));
    } finally {
      db.close();
    }
  },
});

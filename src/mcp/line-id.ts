/**
 * The id of a request line too long to read (over the stdio transport's 10 MiB), found by
 * scanning its bytes as they stream past, without keeping them. The MCP SDK's client writes
 * `{"method", "params", "jsonrpc", "id"}`: the id comes after the arguments, so a probe of
 * the line's start found nothing, the error went out with `id: null`, and the caller waited
 * for its own timeout. Here only the top-level object's `"id"` member counts (an `"id"`
 * inside the arguments or inside a string is skipped); its value is kept up to a small size.
 */

export type Id = string | number | null;

/** A longer id value is not kept (the caller's request cannot be named; the answer's id is null). */
const MAX_ID_BYTES = 1024;

const QUOTE = 0x22,
  BACKSLASH = 0x5c,
  COLON = 0x3a,
  COMMA = 0x2c;
const OPEN_OBJECT = 0x7b,
  CLOSE_OBJECT = 0x7d,
  OPEN_ARRAY = 0x5b,
  CLOSE_ARRAY = 0x5d;

/** A JSON-RPC id: a string or an integer (JSON-RPC 2.0 §4; MCP refuses null). */
export const validId = (v: unknown): Id => (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? v : null);

/**
 * Feeds the bytes of one line, in pieces, and says the top-level `"id"`. Work is one pass
 * with constant state (nesting depth, inside a string or not, the current key while it is
 * short), so a 100 MiB line costs a scan and no memory.
 */
export class LineIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: the next string is a member name. */
  private expectKey = false;
  /** The member name being read at depth 1 (null once it is longer than any name we want). */
  private key: number[] | null = null;
  private lastKey = '';
  /** The id's value, byte by byte, from after its colon to the comma or brace that ends it. */
  private value: number[] | null = null;
  private found: Id | undefined;

  feed(bytes: Uint8Array): void {
    if (this.found !== undefined) return;
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (this.value) {
        if (!this.inString && this.depth === 1 && (c === COMMA || c === CLOSE_OBJECT)) {
          this.settle();
          if (this.found !== undefined) return;
        } else if (this.value.length >= MAX_ID_BYTES) {
          this.value = null;
          this.found = null;
          return;
        } else this.value.push(c);
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.key) {
            this.lastKey = Buffer.from(this.key).toString('utf8');
            this.key = null;
          }
        } else if (this.key) {
          if (this.key.length < 8) this.key.push(c);
          else this.key = null;
        }
        continue;
      }
      switch (c) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) {
            this.key = [];
            this.lastKey = '';
            this.expectKey = false;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          this.depth++;
          if (this.depth === 1) this.expectKey = c === OPEN_OBJECT;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          this.depth--;
          break;
        case COMMA:
          if (this.depth === 1) this.expectKey = true;
          break;
        case COLON:
          if (this.depth === 1 && this.lastKey === 'id') this.value = [];
          this.lastKey = '';
          break;
      }
    }
  }

  private settle(): void {
    const text = Buffer.from(this.value!).toString('utf8').trim();
    this.value = null;
    try {
      this.found = validId(JSON.parse(text));
    } catch {
      this.found = null;
    }
  }

  /** The top-level id, if one was read whole (null: none, or not a valid id). */
  id(): Id {
    return this.found ?? null;
  }
}

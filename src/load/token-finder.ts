/**
 * Whole-token search for many literal strings at once (the Redactor's echoes of a capture's
 * credentials, issue 14). A single regular-expression alternation of every spelling was
 * tried at every position of every text, so its cost grew with the number of credentials
 * times the bytes: 43 of the parse worker's 61 s at 500 MB, where a session token per few
 * hundred requests made hundreds of spellings.
 *
 * Here one character-class scan finds the runs of characters the spellings are made of
 * (a spelling lies inside one run), and only runs at least as long as the shortest
 * spelling are looked at: at each position a whole token may start (the text's start, or
 * after a character that is not an ASCII letter or digit), the spellings sharing its first
 * `prefixLength` characters are tried, longest first. The matches are the alternation's:
 * leftmost, the first spelling in longest-first order that ends before a character that is
 * not a letter or digit, scanning on after each match.
 */
const isTokenChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

export class TokenFinder {
  private readonly byPrefix = new Map<string, string[]>();
  private readonly runs: RegExp | null;
  private readonly prefixLength: number;

  /** `spellings`: non-empty strings, in the order they are tried at one position (longest first). */
  constructor(spellings: readonly string[]) {
    this.prefixLength = spellings.length === 0 ? 0 : Math.min(...spellings.map((s) => s.length));
    const chars = new Set<number>();
    for (const s of spellings) {
      for (let i = 0; i < s.length; i++) chars.add(s.charCodeAt(i));
      const key = s.slice(0, this.prefixLength);
      const list = this.byPrefix.get(key);
      if (list) list.push(s);
      else this.byPrefix.set(key, [s]);
    }
    const cls = [...chars]
      .sort((a, b) => a - b)
      .map((c) => `\\u${c.toString(16).padStart(4, '0')}`)
      .join('');
    this.runs = spellings.length === 0 ? null : new RegExp(`[${cls}]{${this.prefixLength},}`, 'g');
  }

  /** `text` with every whole-token spelling replaced by `marker`. */
  replaceAll(text: string, marker: string): string {
    if (!this.runs) return text;
    const parts: string[] = [];
    let from = 0;
    // One expression for every text: nothing here calls back into it, so lastIndex is this scan's.
    this.runs.lastIndex = 0;
    for (let m = this.runs.exec(text); m !== null; m = this.runs.exec(text)) {
      const end = m.index + m[0].length;
      let i = m.index;
      while (i <= end - this.prefixLength) {
        // A whole token starts at the text's start or after a character that is not a letter or digit.
        if (i > 0 && isTokenChar(text.charCodeAt(i - 1))) {
          i++;
          continue;
        }
        const candidates = this.byPrefix.get(text.slice(i, i + this.prefixLength));
        const match = candidates?.find((c) => text.startsWith(c, i) && !isTokenChar(text.charCodeAt(i + c.length)));
        if (match === undefined) {
          i++;
          continue;
        }
        parts.push(text.slice(from, i), marker);
        i += match.length;
        from = i;
      }
    }
    if (parts.length === 0) return text;
    parts.push(text.slice(from));
    return parts.join('');
  }
}

/** One record as the capture readers (HAR, scenario Evidence) hand it to the fact writer. */
export interface HeaderIn { name: string; value: string | null }

export interface LoadedRecord {
  ordinal: number;
  method: string;
  url: URL;
  rawUrl: string;
  startedMs: number | null;
  durationMs: number;
  status: number;
  statusText: string | null;
  httpVersion: string | null;
  pageId: string | null;
  stepId: string | null;
  transactionId: string | null;
  redirectedFromTransactionId: string | null;
  /** BS-61; null for HAR. */
  redirectState: 'linked' | 'root' | 'unknown' | null;
  resourceType: string | null;
  requestMediaType: string | null;
  responseMediaType: string | null;
  requestBodyId: number;
  responseBodyId: number;
  requestHeaders: HeaderIn[];
  responseHeaders: HeaderIn[];
  requestCookies: string[];
  responseCookies: string[];
}

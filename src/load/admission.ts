/**
 * BS-81: the one admission rule for retained scenario captures. The loader (and through it
 * the manifest and the environment) and the capture comparison all call
 * `admitRetainedScenario`, so they accept and refuse the same captures and keep the same
 * missing facts: an omitted `scenario.event_families` or network-content member stays
 * `null` (unknown), never derived from the events observed.
 */
import { FieldReader, type Obj } from './fields.js';

/** What a retained capture's root says about how it was made. `null`: the capture does not say. */
export interface RetainedScenario {
  formatVersion: string;
  startUrl: string | null;
  requestBodies: boolean | null;
  responseBodies: boolean | null;
  headerValues: boolean | null;
  /** BS-80/BS-81: the sorted, de-duplicated selection, or null when the capture omits it. */
  eventFamilies: string[] | null;
}

/** The supported `schema_version` of scenario Evidence. */
export const SCENARIO_SCHEMA_VERSION = 1;

/**
 * Admits one retained scenario capture by its root members (`get(name)` returns a root
 * member or undefined). Throws CapstateError naming the file and JSON path when the
 * capture is of an unsupported version or its selection members are malformed.
 */
export function admitRetainedScenario(file: string, get: (member: string) => unknown): RetainedScenario {
  const f = new FieldReader(file, undefined, []);
  const version = get('schema_version');
  if (version !== SCENARIO_SCHEMA_VERSION) {
    f.fail(
      ['schema_version'],
      `unsupported scenario Evidence schema_version ${JSON.stringify(version)}; this capstate reads version ${SCENARIO_SCHEMA_VERSION}`,
      'unsupported-format',
    );
  }
  const scenario = f.obj(get('scenario') ?? {}, ['scenario'], '"scenario"');
  const nc =
    scenario.network_content === undefined ? {} : f.obj(scenario.network_content, ['scenario', 'network_content'], '"network_content"');
  const start = scenario.start_url;
  let startUrl: string | null = null;
  if (typeof start === 'string') startUrl = start;
  else if (start && typeof start === 'object' && typeof (start as Obj).url === 'string') startUrl = (start as Obj).url as string;
  let eventFamilies: string[] | null = null;
  if (scenario.event_families !== undefined && scenario.event_families !== null) {
    const list = f.array(scenario, ['scenario'], 'event_families');
    list.forEach((x, i) => {
      if (typeof x !== 'string' || x === '') f.fail(['scenario', 'event_families', i], 'an event family must be a non-empty string');
    });
    eventFamilies = [...new Set(list as string[])].sort();
  }
  return {
    formatVersion: String(version),
    startUrl,
    requestBodies: f.bool(nc, ['scenario', 'network_content'], 'request_body'),
    responseBodies: f.bool(nc, ['scenario', 'network_content'], 'response_body'),
    headerValues: f.bool(nc, ['scenario', 'network_content'], 'header_values'),
    eventFamilies,
  };
}

/**
 * Sites (OQ-2 as revised): two origins are same-site when they share a scheme and a
 * registrable domain (`api.example.com` beside `www.example.com`). capstate carries no
 * public-suffix list; it knows the common multi-label suffixes below, which covers the
 * country-code second levels and the hosting platforms whose subdomains belong to
 * different owners (`alice.github.io` and `bob.github.io` are different sites). IP
 * addresses and single-label hosts (`localhost`) have no registrable domain: as in the
 * HTML standard, their site is the host itself, so `http://127.0.0.1:3000` and
 * `http://127.0.0.1:8080` are same-site (a dev server beside its API), ports ignored.
 */

/** Public suffixes of more than one label that capstate recognises. */
const MULTI_LABEL_SUFFIXES = new Set([
  // country-code second levels
  'co.uk',
  'org.uk',
  'ac.uk',
  'gov.uk',
  'me.uk',
  'ltd.uk',
  'plc.uk',
  'net.uk',
  'sch.uk',
  'com.au',
  'net.au',
  'org.au',
  'edu.au',
  'gov.au',
  'co.nz',
  'org.nz',
  'net.nz',
  'govt.nz',
  'co.jp',
  'ne.jp',
  'or.jp',
  'ac.jp',
  'go.jp',
  'co.kr',
  'or.kr',
  'com.cn',
  'net.cn',
  'org.cn',
  'gov.cn',
  'com.br',
  'net.br',
  'org.br',
  'gov.br',
  'com.mx',
  'org.mx',
  'gob.mx',
  'com.ar',
  'com.tr',
  'gov.tr',
  'co.in',
  'net.in',
  'org.in',
  'gov.in',
  'co.za',
  'org.za',
  'gov.za',
  'com.sg',
  'gov.sg',
  'com.hk',
  'org.hk',
  'com.tw',
  'org.tw',
  'co.il',
  'org.il',
  'co.id',
  'or.id',
  'com.my',
  'com.ph',
  'com.vn',
  'com.ua',
  'com.pl',
  'co.th',
  'in.th',
  'com.eg',
  'com.sa',
  'com.pk',
  'com.ng',
  'co.ke',
  'com.co',
  'com.pe',
  'com.ve',
  'com.es',
  // hosting platforms (each subdomain is its own site)
  'github.io',
  'gitlab.io',
  'herokuapp.com',
  'netlify.app',
  'vercel.app',
  'pages.dev',
  'workers.dev',
  'web.app',
  'firebaseapp.com',
  'appspot.com',
  'azurewebsites.net',
  'cloudfront.net',
  'amazonaws.com',
  'blogspot.com',
  'wordpress.com',
  'fly.dev',
  'onrender.com',
  'glitch.me',
  'repl.co',
  'ngrok.io',
  'ngrok-free.app',
]);

/** The registrable domain of a host name, or null (an IP address, a single label). */
export function registrableDomain(host: string): string | null {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h.startsWith('[') || /^\d+(\.\d+){3}$/.test(h)) return null;
  const labels = h.split('.');
  if (labels.length < 2) return null;
  let suffixLabels = 1;
  for (let n = labels.length - 1; n >= 2; n--) {
    if (MULTI_LABEL_SUFFIXES.has(labels.slice(-n).join('.'))) {
      suffixLabels = n;
      break;
    }
  }
  if (labels.length <= suffixLabels) return null;
  return labels.slice(-(suffixLabels + 1)).join('.');
}

/** Whether two origins (`scheme://host[:port]`) are same-site: one scheme, one registrable domain. */
export function isSameSite(a: string, b: string): boolean {
  let ua: URL, ub: URL;
  try {
    ua = new URL(a);
    ub = new URL(b);
  } catch {
    return false;
  }
  if (ua.protocol !== ub.protocol) return false;
  const site = (u: URL) => registrableDomain(u.hostname) ?? u.hostname.toLowerCase();
  return site(ua) === site(ub);
}

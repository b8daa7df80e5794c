import type { Deprecation } from '../registry/define-tool.ts';

/** RFC 9745 Deprecation (SF Date), RFC 8594 Sunset (IMF-fixdate) and a Link to the migration guide. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(d.since.getTime() / 1000)}`,
    Sunset: d.sunset.toUTCString(),
    Link: `<${d.link}>; rel="deprecation"; type="text/html"`,
  };
}

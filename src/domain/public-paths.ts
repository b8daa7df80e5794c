/** Where the storefront serves content (docs/content.md); the API returns these so agents can link to them. */
export const pagePath = (slug: string) => `/info/${slug}`;
export const servicePath = (slug: string) => `/services/${slug}`;

/** An absolute URL when the public base URL is configured, else the site-relative path. */
export const publicUrl = (baseUrl: string | undefined, path: string) => (baseUrl ? `${baseUrl}${path}` : path);

// Storefront paths besides those the API hands out (pagePath, servicePath in src/domain/public-paths.ts).
export const productPath = (slug: string) => `/products/${slug}`;
export const categoryPath = (slug: string, page = 1) => (page > 1 ? `/categories/${slug}?page=${page}` : `/categories/${slug}`);
export const SERVICES_PATH = '/services';
export const SEARCH_PATH = '/search';

// Storefront paths besides those the API hands out (pagePath, servicePath in src/domain/public-paths.ts).
export const productPath = (slug: string) => `/products/${slug}`;
export const categoryPath = (slug: string, page = 1) => (page > 1 ? `/categories/${slug}?page=${page}` : `/categories/${slug}`);
export const SERVICES_PATH = '/services';
export const SEARCH_PATH = '/search';
export const CART_PATH = '/cart';
export const CART_ITEMS_PATH = '/cart/items';
export const CART_LINES_PATH = '/cart/lines';
export const CART_DISCOUNT_PATH = '/cart/discount';
export const CHECKOUT_PATH = '/checkout';

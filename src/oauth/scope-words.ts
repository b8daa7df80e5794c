import type { Scope } from '../registry/scopes.ts';

/** Each scope in the words the consent page shows a shop owner (typed as a Record so a new scope cannot be missed). */
export const SCOPE_WORDS: Record<Scope, string> = {
  'analytics:read': 'See sales and traffic figures',
  'audit:read': 'Read the history of changes made through the API',
  'audit:revert': 'Undo changes made through the API',
  'cart:write': 'Create carts and place orders as a shopper',
  'catalog:read': 'Read products and prices, including unpublished ones',
  'categories:read': 'Read categories',
  'categories:write': 'Create, change and delete categories',
  'customer:read': 'See customers and their contact details',
  'discounts:read': 'See discount codes',
  'discounts:write': 'Create, change and delete discount codes',
  'features:read': 'See which shop features are switched on',
  'features:write': 'Switch shop features on and off',
  'marketing:write': 'Find stock photos and prepare marketing content',
  'orders:read': 'See orders',
  'orders:write': 'Change orders: status, refunds and cancellations',
  'pages:read': 'Read pages, including drafts',
  'pages:write': 'Create, change, publish and delete pages',
  'products:write': 'Create, change and delete products, prices and stock',
  'settings:read': 'Read shop settings',
  'settings:write': 'Change shop settings',
};

import type { Scope } from '../registry/scopes.ts';

/** Each scope in the words the consent page shows a shop owner (typed as a Record so a new scope cannot be missed). */
export const SCOPE_WORDS: Record<Scope, string> = {
  'analytics:read': 'See sales and traffic figures',
  'audit:read': 'Read the history of changes made through the API',
  'audit:revert': 'Undo changes made through the API',
  'cart:write': 'Create carts and place orders at checkout',
  'catalog:read': 'Read the product catalog',
  'checkout:agent': 'Buy for shoppers through the UCP and ACP checkout protocols: create, update, complete and cancel your own checkout sessions and read their orders',
  'categories:read': 'Read categories',
  'categories:write': 'Create, change and delete categories',
  'customer:read': 'See customers and their contact details',
  'discounts:read': 'See discount codes',
  'discounts:write': 'Create discount codes and switch them on or off',
  'features:read': 'See which shop features are switched on',
  'features:write': 'Switch shop features on and off',
  'marketing:write': 'Use the marketing tools, such as the stock photo search',
  'orders:read': 'See orders',
  'orders:write': 'Move orders between statuses (shipped, refunded, cancelled …)',
  'pages:read': 'Read pages, layouts and services, drafts included',
  'pages:write': 'Create, change and delete pages, layouts and services',
  'products:write': 'Create, change and delete products, with prices, stock and images',
  'settings:read': 'Read shop settings',
  // Webhooks live under settings:write; what they receive is bounded by the read scopes approved with it.
  'settings:write': 'Change shop settings and set up webhooks: web addresses that are sent, as it happens, the data of everything else approved here for reading (orders and customers’ contact details included, when those are approved too)',
};

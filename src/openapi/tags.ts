// One tag per tool domain (the part of the tool name before the dot), with what the domain is for.
// test/openapi/openapi.test.ts fails while a domain of the registry has no description here.
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  images: 'Stock photos from Openverse, Unsplash or Pexels, with licence and credit, ready for products.attach_image.',
  products: 'The product catalog: search and read live products, create, update, soft-delete, attach images and set options.',
  variants: 'The variants of a product (one per combination of its options), each bought by id or SKU: create, update, delete, adjust stock.',
  categories: 'Product categories with their live product counts: list, create or update, delete when empty.',
  pages: 'CMS pages (drafts included) and their Visual Builder layouts.',
  services: 'Service offerings listed on the public /services pages: list, create, update.',
  site: 'The published site as visitors see it: published pages and service offerings, never drafts.',
  orders: 'Orders placed in the shop: list, read, and move them through their status transitions.',
  discounts: 'Discount codes: list, create, switch on or off.',
  cart: 'Carts owned by the calling key: create, add and change items, read.',
  checkout: 'Turn a cart into an order with shipping details and an optional discount code.',
  customers: 'Customers derived from orders, grouped by email: list them, read one with their recent orders.',
  analytics: 'Sales figures for the orders created in a period.',
  settings: 'The shop settings checkout uses (name, currency, shipping fee, free-shipping threshold, VAT rate): read and change.',
  shipping: 'Shipping rates, which checkout sessions offer as fulfillment options by service level and country: list, create or replace, delete.',
  features: 'Named feature flags that switch storefront behaviour on or off.',
  audit: 'The audit log of every write, and audit.revert to undo a reversible one.',
  webhooks: 'Endpoints that receive signed events (Standard Webhooks): register, change, rotate secrets, test, and inspect or redeliver deliveries.',
};

/** The tag of the `webhooks` section: the events the service sends, one operation per event type. */
export const EVENTS_TAG = {
  name: 'events',
  description: 'The events delivered to webhook endpoints, one per event type; each is signed (webhook-signature) with the endpoint secret.',
};

import { z } from 'zod';
import { defineTool } from '../registry/define-tool.ts';
import { limit } from '../schemas/numbers.ts';
import { OrderListItem } from '../schemas/orders.ts';
import { text } from '../schemas/text.ts';
import { timestamp } from '../schemas/time.ts';
import { emailInput } from '../schemas/web.ts';
import { getCustomer, listCustomers } from '../services/customers.ts';

/** How many of a customer's orders customers.get returns. */
const RECENT_ORDERS = 10;

const CustomerSummary = z.object({
  email: z.string().describe('Lower-cased: orders are grouped by email case-insensitively.'),
  name: z.string().describe('The shipping name of the most recent order.'),
  orderCount: z.number().int().min(0),
  totalSpentDkk: z.number().int().min(0).describe('Σ totalDkk less refunds of orders in a revenue status (see analytics.summary).'),
  firstOrderAt: timestamp(),
  lastOrderAt: timestamp(),
});

export const customerTools = [
  defineTool({
    name: 'customers.list',
    title: 'List customers',
    description: 'Lists customers derived from orders (grouped by email, case-insensitively), most recently ordering first, with order count, amount spent (øre, revenue statuses only) and first/last order time.',
    scope: 'customer:read',
    kind: 'read',
    errors: [],
    input: z.strictObject({
      query: text({ min: 1, max: 254 }).optional().describe('Part of the email, matched literally and case-insensitively.'),
      limit: limit(20),
    }),
    output: z.array(CustomerSummary),
    handler: ({ query, limit: take }, ctx) => listCustomers(ctx.db, query, take),
  }),

  defineTool({
    name: 'customers.get',
    title: 'Get a customer',
    description: `Returns one customer (by email, case-insensitive) with the figures of customers.list and their ${RECENT_ORDERS} most recent orders.`,
    scope: 'customer:read',
    kind: 'read',
    errors: ['not_found'],
    input: z.strictObject({ email: emailInput() }),
    output: CustomerSummary.extend({ recentOrders: z.array(OrderListItem) }),
    handler: ({ email }, ctx) => getCustomer(ctx.db, email, RECENT_ORDERS),
  }),
];

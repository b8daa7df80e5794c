// An e-mail's subject, plain text and HTML, from the order as it is when the e-mail is sent (docs/email.md). Pure:
// the worker reads the order and the shop's settings and hands them in.
import { CATALOGUES, emailLanguage, type Messages } from './catalogue.ts';

export type EmailKindName = 'order_confirmation' | 'shipping_notice';

export type EmailOrder = {
  id: string;
  createdAt: Date;
  paidAt: Date | null;
  shippingName: string;
  shippingAddress: string;
  shippingZip: string;
  shippingCity: string;
  /** Amounts in minor units (øre) of `currency`. */
  subtotalDkk: number;
  discountDkk: number;
  shippingDkk: number;
  totalDkk: number;
  vatOere: number | null;
  discountCode: string | null;
  currency: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  items: { productName: string; quantity: number; unitPriceDkk: number; options: Record<string, string> }[];
};

export type EmailShop = { name: string; language: string };

export type RenderedEmail = { subject: string; text: string; html: string };

/** The characters HTML gives meaning to, in text and in quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Minor units as an exact decimal string ("123450" → "1234.50"), so Intl formats it without a float's rounding. */
function decimal(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const digits = String(Math.abs(minor)).padStart(3, '0');
  return `${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

function moneyFormat(m: Messages, currency: string): (minor: number) => string {
  const format = new Intl.NumberFormat(m.locale, { style: 'currency', currency });
  return (minor) => format.format(decimal(minor) as `${number}`);
}

/** Only an http(s) link becomes a link; orders.update_status accepts https only, but a row may come from elsewhere. */
const linkable = (url: string | null): url is string => url !== null && /^https?:\/\//i.test(url);

/** A block of the e-mail: a heading and label/value rows, or paragraphs. Rendered both as text and as HTML. */
type Block =
  | { type: 'paragraph'; text: string }
  | { type: 'rows'; heading: string; rows: [label: string, value: string, href?: string][] }
  | { type: 'items'; heading: string; lines: { name: string; options: string; quantity: string; amount: string }[]; totals: [string, string][] }
  | { type: 'address'; heading: string; lines: string[] };

export function renderEmail(kind: EmailKindName, order: EmailOrder, shop: EmailShop): RenderedEmail {
  const m = CATALOGUES[emailLanguage(shop.language)];
  const money = moneyFormat(m, order.currency);
  const date = new Intl.DateTimeFormat(m.locale, { dateStyle: 'long', timeZone: 'Europe/Copenhagen' }).format(order.createdAt);
  const blocks: Block[] = [{ type: 'paragraph', text: `${m.greeting(order.shippingName)},` }];
  if (kind === 'order_confirmation') {
    const awaitingPayment = order.paidAt === null;
    blocks.push({ type: 'paragraph', text: awaitingPayment ? m.confirmationAwaitingPayment(shop.name) : m.confirmationPaid(shop.name) });
    if (awaitingPayment) {
      blocks.push(
        { type: 'rows', heading: m.paymentHeading, rows: [[m.amountToPay, money(order.totalDkk)], [m.paymentReference, order.id]] },
        { type: 'paragraph', text: m.paymentHow },
      );
    }
  } else {
    blocks.push({ type: 'paragraph', text: m.shippingIntro(shop.name) });
    const rows: [string, string, string?][] = [];
    if (order.carrier) rows.push([m.carrier, order.carrier]);
    if (order.trackingNumber) rows.push([m.trackingNumber, order.trackingNumber]);
    if (linkable(order.trackingUrl)) rows.push([m.trackingLink, order.trackingUrl, order.trackingUrl]);
    blocks.push(rows.length > 0 ? { type: 'rows', heading: m.shipment, rows } : { type: 'paragraph', text: m.noTracking });
  }
  blocks.push({ type: 'rows', heading: m.orderNumber, rows: [[m.orderNumber, order.id], [m.orderDate, date]] });
  const totals: [string, string][] = [[m.subtotal, money(order.subtotalDkk)]];
  if (order.discountDkk > 0) totals.push([m.discountWithCode(order.discountCode), money(-order.discountDkk)]);
  totals.push([m.shipping, money(order.shippingDkk)], [m.total, money(order.totalDkk)]);
  if (order.vatOere !== null) totals.push([m.vatIncluded, money(order.vatOere)]);
  blocks.push(
    {
      type: 'items',
      heading: m.yourOrder,
      lines: order.items.map((i) => ({
        name: i.productName,
        options: Object.entries(i.options).map(([name, value]) => `${name}: ${value}`).join(', '),
        quantity: `${i.quantity} × ${money(i.unitPriceDkk)}`,
        amount: money(i.quantity * i.unitPriceDkk),
      })),
      totals,
    },
    { type: 'address', heading: m.deliveryAddress, lines: [order.shippingName, order.shippingAddress, `${order.shippingZip} ${order.shippingCity}`] },
    { type: 'paragraph', text: m.signOff(shop.name) },
  );
  const subject = kind === 'order_confirmation' ? m.confirmationSubject(shop.name, order.id) : m.shippingSubject(shop.name, order.id);
  return { subject: oneLine(subject), text: blocks.map(asText).join('\n\n') + '\n', html: asHtml(subject, m, blocks) };
}

/** A header value is one line: a shop name with a line break must not start another header. */
const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();

function asText(block: Block): string {
  switch (block.type) {
    case 'paragraph':
      return block.text;
    case 'rows':
      return [block.heading, ...block.rows.map(([label, value]) => `${label}: ${value}`)].join('\n');
    case 'items': {
      const lines = block.lines.map((l) => `- ${l.name}${l.options ? ` (${l.options})` : ''}\n  ${l.quantity} = ${l.amount}`);
      return [block.heading, ...lines, '', ...block.totals.map(([label, value]) => `${label}: ${value}`)].join('\n');
    }
    case 'address':
      return [block.heading, ...block.lines].join('\n');
  }
}

/** Simple HTML that mail clients show alike: inline styles, one table for the lines, every value escaped. */
function asHtml(subject: string, m: Messages, blocks: readonly Block[]): string {
  const e = escapeHtml;
  const cell = 'padding:4px 8px 4px 0;vertical-align:top';
  const body = blocks.map((block) => {
    switch (block.type) {
      case 'paragraph':
        return `<p>${e(block.text).replace(/\n/g, '<br>')}</p>`;
      case 'rows':
        return `<h2 style="font-size:16px">${e(block.heading)}</h2>\n<table role="presentation">${block.rows
          .map(([label, value, href]) => `<tr><td style="${cell}">${e(label)}</td><td style="${cell}">${href ? `<a href="${e(href)}">${e(value)}</a>` : e(value)}</td></tr>`)
          .join('')}</table>`;
      case 'items':
        return `<h2 style="font-size:16px">${e(block.heading)}</h2>\n<table role="presentation" style="border-collapse:collapse">${block.lines
          .map((l) => `<tr><td style="${cell}">${e(l.name)}${l.options ? `<br><small>${e(l.options)}</small>` : ''}</td><td style="${cell}">${e(l.quantity)}</td><td style="${cell};text-align:right">${e(l.amount)}</td></tr>`)
          .join('')}${block.totals
          .map(([label, value], i) => `<tr><td colspan="2" style="${cell}${i === 0 ? ';border-top:1px solid #ccc' : ''}">${e(label)}</td><td style="${cell};text-align:right${i === 0 ? ';border-top:1px solid #ccc' : ''}">${e(value)}</td></tr>`)
          .join('')}</table>`;
      case 'address':
        return `<h2 style="font-size:16px">${e(block.heading)}</h2>\n<p>${block.lines.map(e).join('<br>')}</p>`;
    }
  });
  return `<!doctype html>\n<html lang="${e(m.locale)}"><head><meta charset="utf-8"><title>${e(subject)}</title></head>\n<body style="font-family:sans-serif;font-size:14px;line-height:1.5;color:#222">\n${body.join('\n')}\n</body></html>\n`;
}

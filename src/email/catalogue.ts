// Every sentence of the buyer's e-mails, one catalogue per language (docs/email.md). The e-mail module's own: the
// storefront's texts live elsewhere and change on their own. Values are plain text; render.ts escapes them for HTML.

export type EmailLanguage = 'da' | 'en';

export type Messages = {
  /** The Intl locale amounts are written in: 1.234,50 kr. in Danish, DKK 1,234.50 in English. */
  locale: string;
  confirmationSubject: (shop: string, orderNumber: string) => string;
  shippingSubject: (shop: string, orderNumber: string) => string;
  greeting: (name: string) => string;
  /** A manually paid order, before the money arrived. */
  confirmationAwaitingPayment: (shop: string) => string;
  confirmationPaid: (shop: string) => string;
  paymentHeading: string;
  amountToPay: string;
  paymentReference: string;
  paymentHow: string;
  shippingIntro: (shop: string) => string;
  shipmentHeading: string;
  carrier: string;
  trackingNumber: string;
  trackingLink: string;
  noTracking: string;
  orderNumber: string;
  orderDate: string;
  itemsHeading: string;
  quantity: string;
  subtotal: string;
  discount: (code: string | null) => string;
  shipping: string;
  total: string;
  vatIncluded: string;
  shippingAddressHeading: string;
  signOff: (shop: string) => string;
};

export const CATALOGUES: Readonly<Record<EmailLanguage, Messages>> = {
  da: {
    locale: 'da-DK',
    confirmationSubject: (shop, n) => `Ordrebekræftelse ${n} fra ${shop}`,
    shippingSubject: (shop, n) => `Din ordre ${n} fra ${shop} er sendt`,
    greeting: (name) => `Hej ${name}`,
    confirmationAwaitingPayment: (shop) =>
      `Tak for din ordre hos ${shop}. Vi har modtaget den og sender den, så snart din betaling er kommet frem.`,
    confirmationPaid: (shop) => `Tak for din ordre hos ${shop}. Vi har modtaget din betaling, og ordren er bekræftet.`,
    paymentHeading: 'Sådan betaler du',
    amountToPay: 'Beløb',
    paymentReference: 'Betalingsreference',
    paymentHow:
      'Betal beløbet som aftalt med butikken, f.eks. med bankoverførsel eller på faktura, og skriv ordrenummeret som reference. Når pengene er modtaget, markerer vi ordren som betalt og sender den.',
    shippingIntro: (shop) => `Godt nyt: din ordre fra ${shop} er sendt og er på vej til dig.`,
    shipmentHeading: 'Forsendelse',
    carrier: 'Fragtfirma',
    trackingNumber: 'Trackingnummer',
    trackingLink: 'Følg din pakke',
    noTracking: 'Der er ingen sporingsoplysninger til denne forsendelse.',
    orderNumber: 'Ordrenummer',
    orderDate: 'Ordredato',
    itemsHeading: 'Din ordre',
    quantity: 'Antal',
    subtotal: 'Varer i alt',
    discount: (code) => (code ? `Rabat (${code})` : 'Rabat'),
    shipping: 'Fragt',
    total: 'I alt',
    vatIncluded: 'Heraf moms',
    shippingAddressHeading: 'Leveringsadresse',
    signOff: (shop) => `Venlig hilsen\n${shop}`,
  },
  en: {
    locale: 'en-GB',
    confirmationSubject: (shop, n) => `Order confirmation ${n} from ${shop}`,
    shippingSubject: (shop, n) => `Your order ${n} from ${shop} has shipped`,
    greeting: (name) => `Hello ${name}`,
    confirmationAwaitingPayment: (shop) =>
      `Thank you for your order at ${shop}. We have received it and will send it as soon as your payment has arrived.`,
    confirmationPaid: (shop) => `Thank you for your order at ${shop}. We have received your payment and your order is confirmed.`,
    paymentHeading: 'How to pay',
    amountToPay: 'Amount',
    paymentReference: 'Payment reference',
    paymentHow:
      'Pay the amount as agreed with the shop, for example by bank transfer or against an invoice, quoting the order number as the reference. Once the money has arrived we mark the order paid and send it.',
    shippingIntro: (shop) => `Good news: your order from ${shop} has shipped and is on its way to you.`,
    shipmentHeading: 'Shipment',
    carrier: 'Carrier',
    trackingNumber: 'Tracking number',
    trackingLink: 'Track your parcel',
    noTracking: 'There is no tracking information for this shipment.',
    orderNumber: 'Order number',
    orderDate: 'Order date',
    itemsHeading: 'Your order',
    quantity: 'Qty',
    subtotal: 'Items',
    discount: (code) => (code ? `Discount (${code})` : 'Discount'),
    shipping: 'Shipping',
    total: 'Total',
    vatIncluded: 'Including VAT',
    shippingAddressHeading: 'Delivery address',
    signOff: (shop) => `Kind regards\n${shop}`,
  },
};

/** The shop's language setting (a BCP 47 tag) → its catalogue: Danish for da and its regional tags, else English. */
export function emailLanguage(tag: string): EmailLanguage {
  return tag.toLowerCase().split('-')[0] === 'da' ? 'da' : 'en';
}

import { createHash } from 'node:crypto';

// The storefront's only stylesheet. Pages link it at a URL containing a hash of its content, so it is cached for a
// year (immutable) and a new version is a new URL. The pages are complete without it: every element is semantic
// HTML in reading order; this only lays it out (360–1440 px: grids collapse to two columns, then one).

export const STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;background:#fff}
img{max-width:100%;height:auto;display:block}
a{color:#0b4f9c}
a:hover{color:#07325f}
:focus-visible{outline:3px solid #0b4f9c;outline-offset:2px}
.skip{position:absolute;left:-9999px;top:0}
.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem 1rem;z-index:10}
.wrap{max-width:1200px;margin:0 auto;padding:0 1rem}
.site-header{border-bottom:1px solid #ddd;background:#fafafa}
.site-header .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding-top:.75rem;padding-bottom:.75rem}
.brand{font-size:1.35rem;font-weight:700;text-decoration:none;color:#1b1b1b}
.site-nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.site-nav a{text-decoration:none}
.site-nav a:hover{text-decoration:underline}
.search{display:flex;align-items:center;gap:.4rem;margin-left:auto}
.search input{font:inherit;padding:.35rem .5rem;border:1px solid #767676;border-radius:4px;min-width:0;width:12rem}
button,.button{font:inherit;display:inline-block;padding:.45rem 1rem;border:0;border-radius:4px;background:#0b4f9c;color:#fff;text-decoration:none;cursor:pointer}
.button:hover,button:hover{background:#07325f;color:#fff}
.button--secondary{background:#fff;color:#0b4f9c;border:2px solid #0b4f9c}
main.wrap{padding-top:1.5rem;padding-bottom:3rem}
h1{font-size:clamp(1.6rem,4vw,2.4rem);line-height:1.2;margin:.25rem 0 1rem}
h2{font-size:1.4rem;margin:2rem 0 .75rem}
h3{font-size:1.1rem;margin:.5rem 0}
.breadcrumbs ol{display:flex;flex-wrap:wrap;list-style:none;padding:0;margin:0 0 .5rem;font-size:.9rem}
.breadcrumbs li+li::before{content:"/";padding:0 .4rem;color:#555}
.grid{display:grid;gap:1rem;list-style:none;padding:0;margin:0;grid-template-columns:repeat(2,minmax(0,1fr))}
@media (max-width:479px){.grid--tiles{grid-template-columns:1fr}}
@media (min-width:760px){.cols-3,.cols-4,.cols-5,.cols-6{grid-template-columns:repeat(3,minmax(0,1fr))}}
@media (min-width:1024px){.cols-4{grid-template-columns:repeat(4,minmax(0,1fr))}.cols-5{grid-template-columns:repeat(5,minmax(0,1fr))}.cols-6{grid-template-columns:repeat(6,minmax(0,1fr))}}
.card{border:1px solid #ddd;border-radius:6px;overflow:hidden;background:#fff;height:100%;display:flex;flex-direction:column}
.card a{text-decoration:none;color:inherit;display:flex;flex-direction:column;height:100%}
.card img{aspect-ratio:1/1;object-fit:cover;width:100%;background:#eee}
.card .placeholder{aspect-ratio:1/1;background:#eee}
.card-body{padding:.6rem .75rem .8rem}
.card h3{font-size:1rem}
.brand-name{color:#555;font-size:.9rem;margin:0}
.price{font-weight:700;margin:.25rem 0 0}
.stock{font-size:.9rem;margin:.25rem 0 0;color:#1e6b30}
.stock--out{color:#a11d1d}
.tile{display:block;border:1px solid #ddd;border-radius:6px;padding:1rem;text-decoration:none;height:100%}
.tile p{color:#444;margin:.25rem 0 0}
.product{display:grid;gap:2rem}
@media (min-width:900px){.product{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}
.gallery-main{margin:0}
.gallery-main img{border-radius:6px;width:100%;background:#f4f4f4}
.gallery-main--empty figcaption{text-align:center}
.gallery-more{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:.5rem;list-style:none;padding:0;margin:.5rem 0 0}
.gallery-more img{border-radius:6px;width:100%}
.thumbs{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:.5rem 0 0}
.thumbs img{width:72px;height:72px;object-fit:cover;border-radius:4px}
.product .price{font-size:1.5rem}
.summary{font-size:1.1rem;border-left:4px solid #0b4f9c;padding-left:.75rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
table.variants{border-collapse:collapse;margin:1rem 0;max-width:100%}
table.variants caption{text-align:left;font-weight:600}
table.variants th,table.variants td{text-align:left;padding:.3rem .75rem .3rem 0;border-bottom:1px solid #ddd}
details{border-bottom:1px solid #ddd;padding:.6rem 0}
summary{cursor:pointer;font-weight:600}
.hero{position:relative;border-radius:8px;overflow:hidden;background:#13294b;color:#fff;margin:0 0 1.5rem}
.hero img{width:100%;max-height:420px;object-fit:cover}
.hero-text{padding:1.5rem}
.hero--left .hero-text{text-align:left}.hero--center .hero-text{text-align:center}.hero--right .hero-text{text-align:right}
.hero h2{margin-top:0;font-size:clamp(1.5rem,4vw,2.2rem)}
.hero .button{background:#fff;color:#13294b}
.cta{background:#eef3fa;border-radius:8px;padding:1.5rem;margin:1.5rem 0}
.cta h2{margin-top:0}
.prose{max-width:70ch}
.prose--narrow{max-width:55ch}.prose--wide{max-width:none}
figure{margin:1rem 0}
figcaption{color:#444;font-size:.9rem;margin-top:.35rem}
.figure--content{max-width:70ch}.figure--wide{max-width:none}
.quotes{list-style:none;padding:0;display:grid;gap:1rem}
@media (min-width:760px){.quotes{grid-template-columns:repeat(2,minmax(0,1fr))}}
.quotes blockquote{margin:0;font-style:italic}
.quotes figure{border:1px solid #ddd;border-radius:6px;padding:1rem;margin:0;display:flex;gap:1rem;align-items:flex-start}
.quotes img{width:56px;height:56px;border-radius:50%;object-fit:cover}
.features{list-style:none;padding:0}
.spacer--xs{height:.5rem}.spacer--sm{height:1rem}.spacer--md{height:2rem}.spacer--lg{height:3.5rem}.spacer--xl{height:5rem}
.service-hero{border-radius:8px;margin:0 0 1rem;max-height:420px;object-fit:cover;width:100%}
.service-price{font-weight:700;font-size:1.2rem}
.pagination{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin-top:1.5rem}
.site-footer{border-top:1px solid #ddd;background:#fafafa;padding:1.5rem 0;font-size:.95rem}
.site-footer .wrap{display:grid;gap:1rem}
@media (min-width:760px){.site-footer .wrap{grid-template-columns:repeat(3,minmax(0,1fr))}}
.site-footer ul{list-style:none;padding:0;margin:0}
.site-footer h2{font-size:1rem;margin:0 0 .5rem}
.empty{color:#444}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.button--link{background:none;color:#0b4f9c;text-decoration:underline;padding:.45rem .25rem}
.button--link:hover{background:none;color:#07325f}
button.button--secondary{background:#fff;color:#0b4f9c;border:2px solid #0b4f9c;padding:.35rem .9rem}
input,select{font:inherit;padding:.4rem .5rem;border:1px solid #767676;border-radius:4px;max-width:100%;background:#fff;color:#1b1b1b}
input[aria-invalid=true]{border-color:#a11d1d;border-width:2px}
.qty{width:4.5rem}
.field{display:flex;flex-direction:column;gap:.25rem;margin:0 0 .9rem}
.field--inline{flex-direction:row;flex-wrap:wrap;align-items:center;gap:.5rem}
.field--check{flex-direction:row;flex-wrap:wrap;align-items:baseline;gap:.4rem}
.field-error{color:#a11d1d;font-size:.9rem;flex-basis:100%}
.buy{margin:1rem 0;padding:1rem;border:1px solid #ddd;border-radius:6px;background:#fafafa}
.notice{padding:.75rem 1rem;border-radius:6px;margin:0 0 1rem}
.notice--error{background:#fdecec;color:#7a1010;border:1px solid #e6a5a5}
.notice--ok{background:#e9f6ec;color:#14532d;border:1px solid #9fd3ad}
.cart-lines,.summary-lines{list-style:none;padding:0;margin:0}
.cart-line{display:grid;gap:.5rem;padding:1rem 0;border-bottom:1px solid #ddd}
@media (min-width:760px){.cart-line{grid-template-columns:minmax(0,2fr) minmax(0,2fr) minmax(0,1fr);align-items:center}}
.cart-line-name{display:flex;flex-direction:column;gap:.15rem}
.cart-line-options,.cart-line-unit{color:#555;font-size:.9rem}
.cart-line-form{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.cart-line-total{font-weight:700;margin:0;text-align:right}
.cart,.checkout{display:grid;gap:2rem}
@media (min-width:900px){.checkout{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}.cart-summary{max-width:28rem;margin-left:auto}}
.discount-form{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin-bottom:1rem}
dl.totals{display:grid;grid-template-columns:1fr auto;gap:.35rem 1rem;margin:0 0 1rem}
dl.totals dd{margin:0;text-align:right}
.totals-total{font-weight:700;font-size:1.15rem;border-top:1px solid #ddd;padding-top:.35rem}
dl.totals .totals-vat{grid-column:1/-1;color:#555;font-size:.9rem}
.summary-lines li{display:flex;justify-content:space-between;gap:1rem;padding:.35rem 0}
fieldset{border:1px solid #ddd;border-radius:6px;padding:1rem;margin:0 0 1rem;min-width:0}
legend{font-weight:600;padding:0 .35rem}
dl.order-facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.order-facts dd{margin:0;overflow-wrap:anywhere}
address{font-style:normal}
.fine{color:#555;font-size:.9rem;margin-top:2rem}
`;

/** The hashed file name the pages link to; any other name under /assets/ is a 404. */
export const STYLESHEET_PATH = `/assets/storefront.${createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 16)}.css`;

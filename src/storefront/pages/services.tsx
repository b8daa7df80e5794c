import { servicePath } from '../../domain/public-paths.ts';
import type { ServiceListPage, ServicePage, ServiceRecord } from '../../services/storefront.ts';
import { breadcrumbLd, Breadcrumbs, type Crumb } from '../components.tsx';
import { renderDocument } from '../document.tsx';
import { isShownImage, newestOf } from '../format.ts';
import { service as serviceLd } from '../json-ld.ts';
import { notFound, page, type PageOutcome } from '../outcome.ts';
import { SERVICES_PATH } from '../paths.ts';
import { Prose } from '../prose.tsx';
import { absolute, textOf, type View } from '../view.ts';

/** Every published service, by navOrder (showInNav is an admin-UI flag and changes nothing here). */
export function servicesPage({ chrome, services }: ServiceListPage, base: string): PageOutcome {
  const view: View = { base, chrome };
  const trail: Crumb[] = [{ name: chrome.shop.shopName, path: '/' }, { name: textOf(view).services, path: SERVICES_PATH }];
  const html = renderDocument({
    view,
    title: textOf(view).services,
    description: textOf(view).servicesOffered(chrome.shop.shopName),
    path: SERVICES_PATH,
    jsonLd: [breadcrumbLd(view, trail)],
    children: (
      <>
        <Breadcrumbs trail={trail} label={textOf(view).breadcrumb} />
        <h1>{textOf(view).services}</h1>
        {services.length ? <ServiceList services={services} /> : <p class="empty">{textOf(view).noServices}</p>}
      </>
    ),
  });
  return page(html, chrome, newestOf(services.map((s) => s.updatedAt)));
}

export function servicePage({ chrome, service: s }: ServicePage, base: string): PageOutcome {
  if (!s) return notFound(chrome);
  const view: View = { base, chrome };
  const path = servicePath(s.slug);
  const trail: Crumb[] = [{ name: chrome.shop.shopName, path: '/' }, { name: textOf(view).services, path: SERVICES_PATH }, { name: s.title, path }];
  const description = s.shortDescription ?? s.body;
  const html = renderDocument({
    view,
    title: s.title,
    description,
    path,
    image: s.heroImage,
    jsonLd: [
      serviceLd({ title: s.title, description, url: absolute(view, path), image: s.heroImage, shopName: chrome.shop.shopName, base }),
      breadcrumbLd(view, trail),
    ],
    children: (
      <>
        <Breadcrumbs trail={trail} label={textOf(view).breadcrumb} />
        <article>
          {isShownImage(s.heroImage) ? <img class="service-hero" src={s.heroImage} alt={s.title} width={1200} height={420} /> : null}
          <h1>{s.title}</h1>
          {s.shortDescription ? <p class="summary">{s.shortDescription}</p> : null}
          {s.priceString ? <p class="service-price">{s.priceString}</p> : null}
          {s.features.length ? (
            <ul>
              {s.features.map((f) => (
                <li>{f}</li>
              ))}
            </ul>
          ) : null}
          <Prose text={s.body} />
        </article>
      </>
    ),
  });
  return page(html, chrome, s.updatedAt);
}

export function ServiceList({ services }: { services: readonly ServiceRecord[] }) {
  return (
    <ul class="grid grid--tiles cols-3">
      {services.map((s) => (
        <li>
          <a class="tile" href={servicePath(s.slug)}>
            <h3>{s.title}</h3>
            {s.shortDescription ? <p>{s.shortDescription}</p> : null}
            {s.priceString ? <p class="service-price">{s.priceString}</p> : null}
          </a>
        </li>
      ))}
    </ul>
  );
}

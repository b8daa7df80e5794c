import { productGridSection } from '../../domain/layout-sections/product-grid.ts';
import { loadProductGrid } from '../../services/storefront.ts';
import { ProductGrid } from '../components.tsx';
import { defineDataSectionRenderer } from './define.ts';

export const productGridRenderer = defineDataSectionRenderer(productGridSection, {
  async load(db, p) {
    const { items, updatedAt } = await loadProductGrid(db, p);
    return { data: items, updatedAt };
  },
  render: (p, view, products) => (
    <section>
      {p.title ? <h2>{p.title}</h2> : null}
      <ProductGrid view={view} products={products} columns={p.columns} />
    </section>
  ),
});

import { categoryGridSection } from '../../domain/layout-sections/category-grid.ts';
import { loadCategoryTiles } from '../../services/storefront.ts';
import { CategoryTiles } from '../components.tsx';
import { newestOf } from '../format.ts';
import { defineDataSectionRenderer } from './define.ts';

export const categoryGridRenderer = defineDataSectionRenderer(categoryGridSection, {
  async load(db, p) {
    const tiles = await loadCategoryTiles(db, p.categorySlugs);
    return { data: tiles, updatedAt: newestOf(tiles.map((t) => t.updatedAt)) };
  },
  render: (p, _view, categories) =>
    categories.length ? (
      <section>
        {p.title ? <h2>{p.title}</h2> : null}
        <CategoryTiles categories={categories} columns={p.columns} />
      </section>
    ) : null,
});

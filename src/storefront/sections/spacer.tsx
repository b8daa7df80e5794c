import { spacerSection } from '../../domain/layout-sections/spacer.ts';
import { defineSectionRenderer } from './define.ts';

export const spacerRenderer = defineSectionRenderer(spacerSection, {
  render: (p) => <div class={`spacer--${p.size}`} aria-hidden="true" />,
});

import { richTextSection } from '../../domain/layout-sections/rich-text.ts';
import { Prose } from '../prose.tsx';
import { defineSectionRenderer } from './define.ts';

export const richTextRenderer = defineSectionRenderer(richTextSection, {
  render: (p) => (p.body.trim() ? <Prose text={p.body} class={`prose--${p.width}`} /> : null),
});

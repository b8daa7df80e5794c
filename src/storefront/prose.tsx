import type { VNode } from 'preact';

// The text format of page bodies, descriptions and rich-text sections: '## ' starts a heading, blank lines separate
// paragraphs. It is plain text, never HTML: everything renders as escaped text nodes.

export function Prose({ text, class: className }: { text: string; class?: string }): VNode {
  const blocks = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter(Boolean);
  return (
    <div class={className ? `prose ${className}` : 'prose'}>
      {blocks.map((block) => (block.startsWith('## ') ? <h2>{block.slice(3).trim()}</h2> : <p>{lines(block)}</p>))}
    </div>
  );
}

/** A paragraph's single line breaks kept as <br>. */
function lines(block: string) {
  return block.split('\n').flatMap((line, i) => (i === 0 ? [line] : [<br />, line]));
}

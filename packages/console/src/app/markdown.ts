// The inline Markdown of the specs' descriptions, which the forms show as field help: `code`,
// **strong**, *emphasis* and [links](https://...), as spans that the views render as elements (never
// as HTML, so a description cannot inject markup). Block structure (lists, paragraphs) reads as text.

export type Span =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong'; text: string }
  | { kind: 'em'; text: string }
  | { kind: 'link'; text: string; href: string };

/** Code first (nothing inside it is Markdown), then links, strong and emphasis. */
const INLINE =
  /`([^`]+)`|\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|(?<!\w)_([^_\s][^_]*)_(?!\w)/g;

export function inlineMarkdown(source: string): Span[] {
  const spans: Span[] = [];
  let at = 0;
  for (const match of source.matchAll(INLINE)) {
    const start = match.index ?? 0;
    if (start > at) spans.push({ kind: 'text', text: source.slice(at, start) });
    const [, code, linkText, href, strong, strongUnderscore, em, emUnderscore] = match;
    if (code !== undefined) spans.push({ kind: 'code', text: code });
    else if (href !== undefined) spans.push({ kind: 'link', text: linkText ?? href, href });
    else if (strong !== undefined || strongUnderscore !== undefined) {
      spans.push({ kind: 'strong', text: strong ?? strongUnderscore ?? '' });
    } else spans.push({ kind: 'em', text: em ?? emUnderscore ?? '' });
    at = start + match[0].length;
  }
  if (at < source.length) spans.push({ kind: 'text', text: source.slice(at) });
  return spans;
}

import DOMPurify from 'dompurify';
import { createMarkdownRenderer } from './markdown-pipeline';

/** Markdown to sanitised HTML (see markdown-pipeline.ts). */
export const renderMarkdown = createMarkdownRenderer(DOMPurify(window));

/** Renders untrusted markdown safely. */
export function Markdown({ text }: { text: string }) {
  // biome-ignore lint/security/noDangerouslySetInnerHtml: renderMarkdown sanitises it with DOMPurify
  return <div className="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}

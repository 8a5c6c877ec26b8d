import { useEffect, useRef } from 'react';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { editorLanguage } from '../file-edit';

/**
 * A CodeMirror 6 editor. It lives in a shadow root: there CodeMirror puts its styles in a
 * constructed stylesheet (`adoptedStyleSheets`), which the CSP's `style-src 'self'` does not
 * govern, instead of the `<style>` element it adds to a document (which that CSP refuses). So
 * neither `'unsafe-inline'` nor a nonce is needed, and `script-src` is untouched. Its inline sizes
 * are set through the CSSOM (`el.style`), which the CSP also allows.
 */
export function CodeEditor(props: {
  path: string;
  value: string;
  readOnly: boolean;
  label: string;
  onChange(text: string): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const change = useRef(props.onChange);
  change.current = props.onChange;
  const { path, value, readOnly, label } = props;

  useEffect(() => {
    const el = host.current;
    if (el === null) return;
    const root = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    root.replaceChildren();
    const parent = document.createElement('div');
    root.append(parent);
    const extensions: Extension[] = [
      lineNumbers(),
      history(),
      keymap.of([...defaultKeymap, ...historyKeymap]),
      syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
      EditorView.lineWrapping,
      EditorState.readOnly.of(readOnly),
      EditorView.editable.of(!readOnly),
      EditorView.contentAttributes.of({ 'aria-label': label }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) change.current(u.state.doc.toString());
      }),
      EditorView.theme({
        '&': { border: '1px solid #c9ced6', borderRadius: '4px', background: '#fff', fontSize: '13px' },
        '.cm-scroller': { fontFamily: 'ui-monospace, monospace', minHeight: '12rem', maxHeight: '60vh' },
        '&.cm-focused': { outline: '2px solid #3b6fd8' },
      }),
    ];
    if (editorLanguage(path) === 'json') extensions.push(json());
    const view = new EditorView({ state: EditorState.create({ doc: value, extensions }), parent, root });
    return () => view.destroy();
  }, [path, value, readOnly, label]);

  return <div ref={host} className="code-editor" data-path={path} />;
}

/** Shown without a token or with a wrong one. Shows no data at all. */
export function NotAuthorised() {
  return (
    <main className="not-authorised" data-state="not-authorised">
      <h1>Not authorised</h1>
      <p>This studio needs the control token of the server that serves it.</p>
      <p>
        Open the link the server printed when it started (it ends in <code>#token=…</code>). The token stays in this tab
        only and is never sent in a URL.
      </p>
    </main>
  );
}

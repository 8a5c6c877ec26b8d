// The keyboard map of the Approvals view, as a pure function so it is unit-tested.

/** What a key press on the Approvals view asks for. */
export type ApprovalKeyAction =
  | 'next'
  | 'previous'
  | 'approve'
  | 'deny'
  | 'edit-args'
  | 'feedback'
  | 'help'
  | 'escape'
  | undefined;

/** Keys typed into a text field are text, never shortcuts. */
export function approvalKeyAction(
  key: string,
  target: { tagName: string; isContentEditable?: boolean },
  mods: { ctrl: boolean; meta: boolean; alt: boolean },
): ApprovalKeyAction {
  if (mods.ctrl || mods.meta || mods.alt) return undefined;
  // Escape always reaches the view: it leaves a text field or cancels a confirmation.
  if (key === 'Escape') return 'escape';
  const tag = target.tagName.toUpperCase();
  if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable === true) return undefined;
  switch (key) {
    case 'j':
    case 'ArrowDown':
      return 'next';
    case 'k':
    case 'ArrowUp':
      return 'previous';
    case 'a':
      return 'approve';
    case 'd':
      return 'deny';
    case 'e':
      return 'edit-args';
    case 'f':
      return 'feedback';
    case '?':
      return 'help';
    default:
      return undefined;
  }
}

/** The next selected index after a move, clamped to the list. */
export function moveSelection(index: number, count: number, action: 'next' | 'previous'): number {
  if (count === 0) return 0;
  const next = action === 'next' ? index + 1 : index - 1;
  return Math.max(0, Math.min(count - 1, next));
}

/**
 * What ingress enforces, taken from the agent config (`messaging.*`, `security.*`). Defaults are
 * the safe posture: receive off, signatures required, no unsigned mail.
 */
export interface IngressSettings {
  /** `messaging.receive`: off by default, so nothing is accepted. */
  readonly receive: boolean;
  /** `security.require_signature`: enforced regardless of `allowUnsigned`. */
  readonly requireSignature: boolean;
  /** `security.allow_unsigned`: unsigned mail passes only when this is on and signatures are not required. */
  readonly allowUnsigned: boolean;
  /** `security.require_payload_signature`. */
  readonly requirePayloadSignature: boolean;
  /** Verified sender DIDs that may deliver. `[]` means any verified sender; unverified senders never match. */
  readonly allowList: readonly string[];
  /** Verified sender DIDs that may not deliver. Allow wins over block only for an explicit allow entry. */
  readonly blockList: readonly string[];
  /** Largest serialised message, in bytes. */
  readonly maxBytes: number;
  /** How far a message timestamp may be from our clock, in milliseconds. */
  readonly skewMs: number;
}

export const DEFAULT_INGRESS_SETTINGS: IngressSettings = Object.freeze({
  receive: false,
  requireSignature: true,
  allowUnsigned: false,
  requirePayloadSignature: true,
  allowList: [],
  blockList: [],
  maxBytes: 256 * 1024,
  skewMs: 5 * 60 * 1000,
});

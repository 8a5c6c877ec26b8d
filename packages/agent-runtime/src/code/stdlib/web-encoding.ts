/**
 * Guest source: TextEncoder, TextDecoder, atob and btoa. The byte work is one host call over a
 * copied ArrayBuffer (Node's own encoders); only a streaming UTF-8 decoder's carried bytes live here.
 */
export const WEB_ENCODING_SOURCE = String.raw`(function (lib) {
  'use strict';
  const toBytes = (input, what) => {
    if (input === undefined) return new Uint8Array(0);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeError(what + ': the input must be an ArrayBuffer or an ArrayBufferView');
  };
  const copyOf = (u8) =>
    u8.byteOffset === 0 && u8.byteLength === u8.buffer.byteLength ? u8.buffer : u8.slice().buffer;
  const LABELS = { 'utf-8': 'utf-8', utf8: 'utf-8', 'unicode-1-1-utf-8': 'utf-8', 'utf-16le': 'utf-16le',
    'utf-16': 'utf-16le', latin1: 'windows-1252', 'iso-8859-1': 'windows-1252', ascii: 'windows-1252',
    'us-ascii': 'windows-1252', 'windows-1252': 'windows-1252' };
  const HOST = { 'utf-8': 'utf8', 'utf-16le': 'utf16le', 'windows-1252': 'latin1' };
  // How many bytes at the end of b start a UTF-8 sequence that is not complete yet.
  const incompleteTail = (b) => {
    const n = b.length;
    for (let back = 1; back <= 3 && back <= n; back++) {
      const c = b[n - back];
      if ((c & 0xc0) === 0x80) continue;
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      return need > back ? back : 0;
    }
    return 0;
  };
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input) { return new Uint8Array(lib.std('encode', String(input === undefined ? '' : input), 'utf8')); }
    encodeInto(input, dest) {
      const s = String(input);
      let read = 0;
      let written = 0;
      for (const ch of s) {
        const b = new Uint8Array(lib.std('encode', ch, 'utf8'));
        if (written + b.length > dest.length) break;
        dest.set(b, written);
        written += b.length;
        read += ch.length;
      }
      return { read, written };
    }
  }
  class TextDecoder {
    #enc; #fatal; #ignoreBOM; #carry = new Uint8Array(0); #started = false;
    constructor(label = 'utf-8', options = {}) {
      const enc = LABELS[String(label).trim().toLowerCase()];
      if (!enc) throw new RangeError('The "' + label + '" encoding is not supported');
      this.#enc = enc;
      this.#fatal = Boolean(options && options.fatal);
      this.#ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() { return this.#enc; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input, options = {}) {
      const stream = Boolean(options && options.stream);
      let b = toBytes(input, 'TextDecoder.decode');
      if (this.#carry.length > 0) {
        const joined = new Uint8Array(this.#carry.length + b.length);
        joined.set(this.#carry);
        joined.set(b, this.#carry.length);
        b = joined;
      }
      let keep = 0;
      if (stream) keep = this.#enc === 'utf-8' ? incompleteTail(b) : this.#enc === 'utf-16le' ? b.length % 2 : 0;
      this.#carry = keep > 0 ? b.slice(b.length - keep) : new Uint8Array(0);
      if (keep > 0) b = b.subarray(0, b.length - keep);
      if (this.#enc === 'utf-8' && this.#fatal && !lib.std('utf8valid', copyOf(b)))
        throw new TypeError('The encoded data was not valid for encoding utf-8');
      let s = lib.std('decode', copyOf(b), HOST[this.#enc]);
      if (!this.#started && !this.#ignoreBOM && s.charCodeAt(0) === 0xfeff) s = s.slice(1);
      this.#started = stream ? this.#started || b.length > 0 : false;
      if (!stream) this.#carry = new Uint8Array(0);
      return s;
    }
  }
  function atob(data) {
    if (arguments.length === 0) throw new TypeError('atob requires 1 argument');
    return lib.std('atob', String(data));
  }
  function btoa(data) {
    if (arguments.length === 0) throw new TypeError('btoa requires 1 argument');
    return lib.std('btoa', String(data));
  }
  return { TextEncoder, TextDecoder, atob, btoa, toBytes, copyOf };
})`;

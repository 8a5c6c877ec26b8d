/**
 * Guest sources: `buffer` (Buffer as a Uint8Array subclass; its encodings (utf8, hex, base64,
 * base64url, latin1/binary, ascii, utf16le/ucs2) are Node's own, run by the host on copied bytes) and
 * `string_decoder`.
 */
export const NODE_BUFFER_SOURCE = String.raw`(function (lib) {
  'use strict';
  const enc = lib.load('web:encoding');
  const norm = (e) => (e === undefined || e === null ? 'utf8' : String(e));
  class Buffer extends Uint8Array {
    static from(value, encOrOffset, length) {
      if (typeof value === 'string') return Buffer._wrap(new Uint8Array(lib.std('encode', value, norm(encOrOffset))));
      if (value instanceof ArrayBuffer) {
        const off = encOrOffset === undefined ? 0 : Number(encOrOffset);
        return new Buffer(value, off, length === undefined ? value.byteLength - off : Number(length));
      }
      if (ArrayBuffer.isView(value) || Array.isArray(value)) {
        const b = new Buffer(value.length);
        for (let i = 0; i < value.length; i++) b[i] = value[i] & 255;
        return b;
      }
      if (value && value.type === 'Buffer' && Array.isArray(value.data)) return Buffer.from(value.data);
      throw new TypeError('The first argument must be of type string, Buffer, ArrayBuffer, ' +
        'Array, or Array-like Object');
    }
    static _wrap(u8) { return new Buffer(u8.buffer, u8.byteOffset, u8.byteLength); }
    static alloc(size, fill, encoding) {
      const b = new Buffer(size);
      if (fill !== undefined && fill !== 0) b.fill(fill, 0, size, encoding);
      return b;
    }
    static allocUnsafe(size) { return new Buffer(size); }
    static allocUnsafeSlow(size) { return new Buffer(size); }
    static isBuffer(b) { return b instanceof Buffer; }
    static isEncoding(e) { try { lib.std('encode', '', String(e)); return true; } catch (x) { return false; } }
    static byteLength(v, e) {
      if (typeof v !== 'string') return v.byteLength;
      return lib.std('encode', v, norm(e)).byteLength;
    }
    static concat(list, total) {
      const n = total === undefined ? list.reduce((s, b) => s + b.length, 0) : total;
      const out = Buffer.alloc(n);
      let p = 0;
      for (const b of list) {
        if (p >= n) break;
        out.set(b.subarray(0, n - p), p);
        p += Math.min(b.length, n - p);
      }
      return out;
    }
    static compare(a, b) { return a.compare(b); }
    toString(encoding, start = 0, end = this.length) {
      const s = Math.max(0, start | 0);
      const e = Math.min(this.length, end | 0);
      if (e <= s) return '';
      return lib.std('decode', enc.copyOf(new Uint8Array(this.buffer, this.byteOffset + s, e - s)), norm(encoding));
    }
    toJSON() { return { type: 'Buffer', data: [...this] }; }
    equals(other) { return this.compare(other) === 0; }
    compare(other) {
      const n = Math.min(this.length, other.length);
      for (let i = 0; i < n; i++) if (this[i] !== other[i]) return this[i] < other[i] ? -1 : 1;
      return this.length === other.length ? 0 : this.length < other.length ? -1 : 1;
    }
    subarray(start, end) { const u = Uint8Array.prototype.subarray.call(this, start, end); return Buffer._wrap(u); }
    slice(start, end) { return this.subarray(start, end); }
    write(string, offset = 0, length, encoding) {
      if (typeof offset === 'string') { encoding = offset; offset = 0; }
      if (typeof length === 'string') { encoding = length; length = undefined; }
      const b = new Uint8Array(lib.std('encode', string, norm(encoding)));
      const n = Math.min(b.length, this.length - offset, length === undefined ? Infinity : length);
      this.set(b.subarray(0, n), offset);
      return n;
    }
    fill(value, offset = 0, end = this.length, encoding) {
      if (typeof value === 'string') {
        if (typeof offset === 'string') { encoding = offset; offset = 0; end = this.length; }
        const b = new Uint8Array(lib.std('encode', value, norm(encoding)));
        if (b.length === 0) return Uint8Array.prototype.fill.call(this, 0, offset, end);
        for (let i = offset, j = 0; i < end; i++, j = (j + 1) % b.length) this[i] = b[j];
        return this;
      }
      return Uint8Array.prototype.fill.call(this, value & 255, offset, end);
    }
    copy(target, targetStart = 0, sourceStart = 0, sourceEnd = this.length) {
      const part = this.subarray(sourceStart, Math.min(sourceEnd, sourceStart + target.length - targetStart));
      target.set(part, targetStart);
      return part.length;
    }
    indexOf(value, from = 0, encoding) {
      const needle = typeof value === 'number' ? [value & 255] : typeof value === 'string' ? Buffer.from(value,
        encoding) : value;
      const start = from < 0 ? Math.max(0, this.length + from) : from;
      outer: for (let i = start; i <= this.length - needle.length; i++) {
        for (let j = 0; j < needle.length; j++) if (this[i + j] !== needle[j]) continue outer;
        return i;
      }
      return -1;
    }
    includes(value, from, encoding) { return this.indexOf(value, from, encoding) !== -1; }
    #view() { return new DataView(this.buffer, this.byteOffset, this.byteLength); }
    readUInt8(o = 0) { return this.#view().getUint8(o); }
    readInt8(o = 0) { return this.#view().getInt8(o); }
    readUInt16LE(o = 0) { return this.#view().getUint16(o, true); }
    readUInt16BE(o = 0) { return this.#view().getUint16(o, false); }
    readInt16LE(o = 0) { return this.#view().getInt16(o, true); }
    readInt16BE(o = 0) { return this.#view().getInt16(o, false); }
    readUInt32LE(o = 0) { return this.#view().getUint32(o, true); }
    readUInt32BE(o = 0) { return this.#view().getUint32(o, false); }
    readInt32LE(o = 0) { return this.#view().getInt32(o, true); }
    readInt32BE(o = 0) { return this.#view().getInt32(o, false); }
    readBigUInt64LE(o = 0) { return this.#view().getBigUint64(o, true); }
    readBigUInt64BE(o = 0) { return this.#view().getBigUint64(o, false); }
    readFloatLE(o = 0) { return this.#view().getFloat32(o, true); }
    readFloatBE(o = 0) { return this.#view().getFloat32(o, false); }
    readDoubleLE(o = 0) { return this.#view().getFloat64(o, true); }
    readDoubleBE(o = 0) { return this.#view().getFloat64(o, false); }
    writeUInt8(v, o = 0) { this.#view().setUint8(o, v); return o + 1; }
    writeInt8(v, o = 0) { this.#view().setInt8(o, v); return o + 1; }
    writeUInt16LE(v, o = 0) { this.#view().setUint16(o, v, true); return o + 2; }
    writeUInt16BE(v, o = 0) { this.#view().setUint16(o, v, false); return o + 2; }
    writeInt16LE(v, o = 0) { this.#view().setInt16(o, v, true); return o + 2; }
    writeInt16BE(v, o = 0) { this.#view().setInt16(o, v, false); return o + 2; }
    writeUInt32LE(v, o = 0) { this.#view().setUint32(o, v, true); return o + 4; }
    writeUInt32BE(v, o = 0) { this.#view().setUint32(o, v, false); return o + 4; }
    writeInt32LE(v, o = 0) { this.#view().setInt32(o, v, true); return o + 4; }
    writeInt32BE(v, o = 0) { this.#view().setInt32(o, v, false); return o + 4; }
    writeDoubleLE(v, o = 0) { this.#view().setFloat64(o, v, true); return o + 8; }
    writeDoubleBE(v, o = 0) { this.#view().setFloat64(o, v, false); return o + 8; }
  }
  for (const m of Object.getOwnPropertyNames(Buffer.prototype))
    if (m.startsWith('readUInt') || m.startsWith('writeUInt'))
      Buffer.prototype[m.replace('UInt', 'Uint')] = Buffer.prototype[m];
  Buffer.poolSize = 8192;
  return { Buffer, constants: { MAX_LENGTH: 2 ** 31 - 1, MAX_STRING_LENGTH: 2 ** 29 - 24 },
    kMaxLength: 2 ** 31 - 1, atob: enc.atob, btoa: enc.btoa };
})`;

export const NODE_STRING_DECODER_SOURCE = String.raw`(function (lib) {
  'use strict';
  const { Buffer } = lib.load('node:buffer');
  const enc = lib.load('web:encoding');
  class StringDecoder {
    #enc; #utf; #carry = [];
    constructor(encoding = 'utf8') {
      const e = String(encoding).toLowerCase().replace('-', '');
      if (!Buffer.isEncoding(e)) throw new TypeError('Unknown encoding: ' + encoding);
      this.#enc = e === 'utf8' ? 'utf8' : e === 'ucs2' || e === 'utf16le' ? 'utf16le' : e === 'binary' ? 'latin1' : e;
      this.encoding = this.#enc;
      if (this.#enc === 'utf8') this.#utf = new enc.TextDecoder('utf-8', { ignoreBOM: true });
      if (this.#enc === 'utf16le') this.#utf = new enc.TextDecoder('utf-16le', { ignoreBOM: true });
    }
    write(buf) {
      const b = typeof buf === 'string' ? Buffer.from(buf) : buf;
      if (this.#utf) return this.#utf.decode(b, { stream: true });
      const unit = this.#enc === 'base64' || this.#enc === 'base64url' ? 3 : 1;
      const all = Buffer.concat([Buffer.from(this.#carry), Buffer.from(b)]);
      const keep = all.length % unit;
      this.#carry = [...all.subarray(all.length - keep)];
      return all.subarray(0, all.length - keep).toString(this.#enc);
    }
    end(buf) {
      let out = buf === undefined ? '' : this.write(buf);
      if (this.#utf) out += this.#utf.decode();
      else if (this.#carry.length) out += Buffer.from(this.#carry).toString(this.#enc);
      this.#carry = [];
      return out;
    }
  }
  return { StringDecoder };
})`;

/** Bytes written and read in order, lengths and numbers as varints: what packed revisions are made of. */
export class ByteWriter {
  private readonly parts: Buffer[] = [];
  byte(value: number): this {
    this.parts.push(Buffer.from([value]));
    return this;
  }
  /** Unsigned LEB128: seven bits a byte, the high bit set on all but the last. */
  varint(value: number): this {
    const out: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      out.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    out.push(rest);
    this.parts.push(Buffer.from(out));
    return this;
  }
  bytes(value: Buffer): this {
    this.parts.push(value);
    return this;
  }
  done(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export class ByteReader {
  at = 0;
  constructor(private readonly buffer: Buffer) {}
  byte(): number {
    const value = this.buffer[this.at];
    if (value === undefined) throw new Error('packed revision ends early');
    this.at += 1;
    return value;
  }
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }
  remaining(): number {
    return this.buffer.length - this.at;
  }
  take(length: number): Buffer {
    if (this.at + length > this.buffer.length) throw new Error('packed revision ends early');
    const value = this.buffer.subarray(this.at, this.at + length);
    this.at += length;
    return value;
  }
}

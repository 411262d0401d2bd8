import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { deflateRaw, deflateRawSync, inflateRawSync, type ZlibOptions } from 'node:zlib';
import { ByteReader as Reader, ByteWriter as Writer } from './packed-bytes.ts';

/**
 * How a revision's contents are stored (decision 0038): packed into one binary value, either whole
 * (deflated) or as the change from an earlier revision of the page (its base). A chain of changes
 * always ends at a whole revision; a new whole one starts when the chain reaches MAX_CHAIN changes
 * or its changes together outweigh the page itself, so that reading any revision reads a bounded
 * number of small rows. Pure: the repository reads the rows, this turns them into contents.
 *
 * Layout: kind (1 byte), digest of the contents (8 bytes), then for a change the base's id, the
 * whole revision's distance below it, the chain's length and its bytes (varints), then the body. A
 * change names its base by id, so that revisions written side by side (PostgreSQL) never read a base
 * they did not use.
 */

/** A revision's two contents; null where the page had none. */
export interface RevisionContents {
  content_draft: string | null;
  content_published: string | null;
}

/** What a new revision needs to know of the page's newest stored one. */
export interface PackedBase {
  id: number;
  head: PackedHead;
}

export interface PackedHead {
  kind: number;
  digest: Buffer;
  /** the base's id (a change) */
  baseId: number;
  /** the whole revision the chain starts from (a change) */
  wholeId: number;
  /** changes since the whole revision, this one included (0: whole) */
  chain: number;
  /** bytes of those changes */
  chainBytes: number;
  /** where the body starts */
  bodyAt: number;
}

const Kind = { Whole: 1, Change: 2 } as const;

/** Changes at most between two whole revisions: a read applies no more than this many. */
export const MAX_CHAIN = 200;
/** Bytes of a packed value's head at most: what the writer reads of the newest revision. */
export const HEAD_BYTES = 40;
const DIGEST_BYTES = 8;

const Field = { Null: 0, Text: 1, Same: 2, Splice: 3 } as const;

/** The digest of contents: a change is made only from a base whose digest is the page's before. */
export function contentsDigest(contents: RevisionContents): Buffer {
  const hash = createHash('sha256');
  for (const text of [contents.content_draft, contents.content_published]) {
    hash.update(text === null ? 'n' : `t${Buffer.byteLength(text)}:`);
    if (text !== null) hash.update(text);
  }
  return hash.digest().subarray(0, DIGEST_BYTES);
}

/**
 * The packed value of a revision: a change from `base` when the base holds `before` (by digest) and
 * the chain has room, whole otherwise.
 */
export async function packRevision(
  contents: RevisionContents,
  before: RevisionContents | null,
  base: PackedBase | null,
): Promise<Buffer> {
  const digest = contentsDigest(contents);
  if (before !== null && base !== null && base.head.chain < MAX_CHAIN) {
    if (base.head.digest.equals(contentsDigest(before))) {
      const body = await changeBody(before, contents);
      const chainBytes = base.head.chainBytes + body.length;
      if (chainBytes <= wholeSize(contents)) {
        const wholeId = base.head.kind === Kind.Whole ? base.id : base.head.wholeId;
        const head = new Writer();
        head.byte(Kind.Change).bytes(digest);
        // The whole revision by its distance from the base: a byte or two rather than an id.
        head
          .varint(base.id)
          .varint(base.id - wholeId)
          .varint(base.head.chain + 1)
          .varint(chainBytes);
        return Buffer.concat([head.done(), body]);
      }
    }
  }
  const whole = new Writer();
  for (const text of [contents.content_draft, contents.content_published]) writeText(whole, text);
  return Buffer.concat([Buffer.from([Kind.Whole]), digest, await deflated(whole.done())]);
}

const deflateRawOffLoop = promisify(deflateRaw);

/** From this size on, bytes are deflated in libuv's thread pool: 4 MB took over 100 ms on the loop. */
const OFF_LOOP_BYTES = 256 * 1024;

/** `bytes` deflated raw; a large input off the event loop, so that no turn holds it. */
function deflated(bytes: Buffer, options: ZlibOptions = {}): Promise<Buffer> | Buffer {
  return bytes.length >= OFF_LOOP_BYTES ? deflateRawOffLoop(bytes, options) : deflateRawSync(bytes, options);
}

/** The head of a packed value (or of its first HEAD_BYTES). */
export function readHead(packed: Uint8Array): PackedHead {
  const reader = new Reader(Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength));
  const kind = reader.byte();
  const digest = reader.take(DIGEST_BYTES);
  if (kind === Kind.Whole) {
    return { kind, digest, baseId: 0, wholeId: 0, chain: 0, chainBytes: 0, bodyAt: reader.at };
  }
  if (kind !== Kind.Change) throw new Error(`unknown packed revision kind ${kind}`);
  const baseId = reader.varint();
  const wholeId = baseId - reader.varint();
  const chain = reader.varint();
  const chainBytes = reader.varint();
  return { kind, digest, baseId, wholeId, chain, chainBytes, bodyAt: reader.at };
}

/**
 * The contents of the revision `id`, from it and the rows of its page it may rest on (by id; others
 * are ignored). Throws when a base is missing: the history would be damaged.
 */
export function unpackRevision(id: number, rows: ReadonlyMap<number, Uint8Array>): RevisionContents {
  const steps: Array<{ packed: Buffer; head: PackedHead }> = [];
  let at = id;
  for (;;) {
    const stored = rows.get(at);
    if (stored === undefined) throw new Error(`revision ${id} rests on revision ${at}, which is missing`);
    const packed = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
    const head = readHead(packed);
    steps.push({ packed, head });
    if (head.kind === Kind.Whole) break;
    at = head.baseId;
  }
  const whole = steps.pop()!;
  const reader = new Reader(inflateRawSync(whole.packed.subarray(whole.head.bodyAt)));
  let fields = [readText(reader), readText(reader)].map(working);
  for (const step of steps.reverse()) {
    fields = applyChange(new Reader(step.packed.subarray(step.head.bodyAt)), fields);
  }
  const [draft, published] = fields.map((field) => field?.view().toString() ?? null);
  return { content_draft: draft ?? null, content_published: published ?? null };
}

/** What a change costs before the chain restarts: the page's own size, uncompressed. */
function wholeSize(contents: RevisionContents): number {
  return (
    Buffer.byteLength(contents.content_draft ?? '') + Buffer.byteLength(contents.content_published ?? '')
  );
}

/** Bytes of the base on either side of a change that serve as the dictionary of its new bytes. */
const WINDOW = 2048;
const windowOf = (base: Buffer, at: number): Buffer =>
  base.subarray(Math.max(0, at - WINDOW), Math.min(base.length, at + WINDOW));

/**
 * Each field as null, the same as the base's, or the base's with one span replaced; then the new
 * bytes of the spans, deflated with the base's bytes around the first span as the dictionary where
 * that makes them smaller (a changed line mostly repeats words of the lines about it).
 */
async function changeBody(before: RevisionContents, after: RevisionContents): Promise<Buffer> {
  const body = new Writer();
  const middles: Buffer[] = [];
  let window: Buffer | null = null;
  for (const key of ['content_draft', 'content_published'] as const) {
    const was = before[key];
    const now = after[key];
    if (now === was) {
      body.byte(Field.Same);
    } else if (now === null || was === null) {
      writeText(body, now);
    } else {
      const a = Buffer.from(was);
      const b = Buffer.from(now);
      const prefix = sameFor(Math.min(a.length, b.length), (from, to) =>
        a.subarray(from, to).equals(b.subarray(from, to)),
      );
      const suffix = sameFor(Math.min(a.length, b.length) - prefix, (from, to) =>
        a.subarray(a.length - to, a.length - from).equals(b.subarray(b.length - to, b.length - from)),
      );
      const middle = b.subarray(prefix, b.length - suffix);
      body.byte(Field.Splice).varint(prefix).varint(suffix).varint(middle.length);
      middles.push(middle);
      window ??= windowOf(a, prefix);
    }
  }
  // No span: no new bytes follow.
  if (window === null) return body.done();
  const middle = Buffer.concat(middles);
  const packed = window.length === 0 ? null : await deflated(middle, { dictionary: window });
  if (packed !== null && packed.length < middle.length) {
    return Buffer.concat([body.done(), Buffer.from([1]), packed]);
  }
  return Buffer.concat([body.done(), Buffer.from([0]), middle]);
}

/**
 * How many bytes from one end two texts share, up to `limit`: `same(from, to)` says whether bytes
 * from..to (counted from that end) are the same in both. Found by halving, each test a native
 * comparison of bytes not yet known to be the same (about twice the bytes in all), where a loop over
 * the bytes of a 4 MB page in JavaScript took tens of milliseconds of the event loop.
 */
function sameFor(limit: number, same: (from: number, to: number) => boolean): number {
  let low = 0;
  let high = limit;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (same(low, middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * A field being rebuilt: its bytes changed in place, with room to grow, so that a chain of changes
 * moves bytes rather than making a copy of the page per change.
 */
class Working {
  constructor(
    private bytes: Buffer,
    private length: number,
  ) {}
  view(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
  splice(prefix: number, suffix: number, middle: Buffer): void {
    const length = prefix + middle.length + suffix;
    if (length > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(length, 2 * this.bytes.length));
      this.bytes.copy(grown, 0, 0, this.length);
      this.bytes = grown;
    }
    this.bytes.copyWithin(prefix + middle.length, this.length - suffix, this.length);
    middle.copy(this.bytes, prefix);
    this.length = length;
  }
}

const working = (bytes: Buffer | null): Working | null => {
  if (bytes === null) return null;
  const room = Buffer.allocUnsafe(bytes.length + 1024);
  bytes.copy(room);
  return new Working(room, bytes.length);
};

/** The fields of a revision from its base's and its change (the layout changeBody writes). */
function applyChange(change: Reader, base: ReadonlyArray<Working | null>): Array<Working | null> {
  const splices: Array<{ field: Working; prefix: number; suffix: number; length: number }> = [];
  const fields = base.map((field) => {
    const tag = change.byte();
    switch (tag) {
      case Field.Same:
        return field;
      case Field.Null:
        return null;
      case Field.Text:
        return working(change.take(change.varint()));
      case Field.Splice:
        if (field === null) throw new Error('a change splices a content its base does not have');
        splices.push({ field, prefix: change.varint(), suffix: change.varint(), length: change.varint() });
        return field;
      default:
        throw new Error(`unknown packed field ${tag}`);
    }
  });
  const first = splices[0];
  if (first === undefined) return fields;
  const deflated = change.byte() === 1;
  const rest = change.take(change.remaining());
  const middles = new Reader(
    deflated ? inflateRawSync(rest, { dictionary: windowOf(first.field.view(), first.prefix) }) : rest,
  );
  for (const { field, prefix, suffix, length } of splices) field.splice(prefix, suffix, middles.take(length));
  return fields;
}

function writeText(writer: Writer, text: string | null): void {
  if (text === null) {
    writer.byte(Field.Null);
    return;
  }
  const bytes = Buffer.from(text);
  writer.byte(Field.Text).varint(bytes.length).bytes(bytes);
}

function readText(reader: Reader): Buffer | null {
  const tag = reader.byte();
  if (tag === Field.Null) return null;
  if (tag !== Field.Text) throw new Error(`unknown packed field ${tag}`);
  return reader.take(reader.varint());
}

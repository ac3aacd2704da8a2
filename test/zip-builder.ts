/**
 * Zips for the loader's tests, written byte by byte so a test can make one lie: by default as
 * Playwright writes them (deflated members, sizes deferred to a data descriptor); `deflate:
 * false` stores a member, `localSizes` writes sizes into its local header, `declaredSize`
 * states another uncompressed size in the central directory.
 */
import { deflateRawSync } from 'node:zlib';

export interface Member {
  name: string;
  data: Buffer;
  deflate?: boolean;
  declaredSize?: number;
  localSizes?: [number, number];
}

/**
 * A zip as Playwright writes one: deflated members whose local headers defer their sizes
 * to a data descriptor (flag bit 3), the central directory holding them. `declaredSize`
 * and `localSizes` let a member lie.
 */
export function zipOf(members: Member[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const nameBytes = Buffer.from(m.name);
    const data = m.deflate === false ? m.data : deflateRawSync(m.data, { level: 1 });
    const method = m.deflate === false ? 0 : 8;
    const size = m.declaredSize ?? m.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.localSizes ? 0 : 8, 6);
    local.writeUInt16LE(method, 8);
    if (m.localSizes) {
      local.writeUInt32LE(m.localSizes[0], 18);
      local.writeUInt32LE(m.localSizes[1], 22);
    }
    local.writeUInt16LE(nameBytes.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(m.localSizes ? 0 : 8, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(nameBytes.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    central.push(c, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

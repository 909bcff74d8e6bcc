#!/usr/bin/env python3
"""Diagnostic: what survived the last young GC before a heap dump (SerialGC).

    young-survivors.py DUMP.hprof GC.log

DUMP.hprof from `jcmd PID GC.heap_dump -all FILE` (no GC before the dump) of a
JVM run with `-XX:+UseSerialGC -Xms<N> -Xmx<N>
-Xlog:gc,gc+heap=debug:file=GC.log`. The survivors of the last young GC
before the dump are the objects in the survivor space in use (the other is
empty); the log gives both spaces' bounds, and object ids in an HPROF dump
are addresses. Prints them by class (count, approximate bytes), the
VirtualThread states by region (S survivor, O old, Y eden), and the lengths of
the ForkJoinTask[] queue arrays.
"""
import collections
import re
import struct
import sys

SIZES = {2: 8, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
PRIMS = {4: 'boolean[]', 5: 'char[]', 6: 'float[]', 7: 'double[]', 8: 'byte[]',
         9: 'short[]', 10: 'int[]', 11: 'long[]'}


def spaces(log):
    """The two survivor spaces and the old generation, as [bottom, end) ranges,
    from the last "Heap After GC" block of the gc+heap log (with -Xms equal to
    -Xmx, SerialGC does not move them)."""
    surv, ten, after = [], None, False
    for line in open(log):
        m = re.search(r'Heap (Before|After) GC', line)
        if m:
            after = m.group(1) == 'After'
            if after:
                surv = []
            continue
        m = re.search(r'(from|to  |the ) +space.*\[(0x[0-9a-f]+), 0x[0-9a-f]+, (0x[0-9a-f]+)\)', line)
        if m and after:
            bounds = (int(m.group(2), 16), int(m.group(3), 16))
            if m.group(1) == 'the ':
                ten = bounds
            else:
                surv.append(bounds)
    if len(surv) != 2 or ten is None:
        sys.exit('no "Heap After GC" block with both survivor spaces in ' + log)
    return surv, ten


def main(dump, log):
    survivor_spaces, ten = spaces(log)
    data = open(dump, 'rb').read()
    p = data.index(b'\0') + 1
    (idsz,) = struct.unpack('>I', data[p:p + 4])
    if idsz != 8:
        sys.exit('expected 8-byte ids, found %d' % idsz)
    p += 12
    names, class_name, layouts = {}, {}, {}
    insts, arrays = [], []

    def segment(p, end):
        while p < end:
            t = data[p]
            p += 1
            if t == 0xFF or t in (0x05, 0x07):
                p += 8
            elif t in (0x01, 0x02, 0x03, 0x08):
                p += 16
            elif t in (0x04, 0x06):
                p += 12
            elif t == 0x20:                     # class dump
                (cid,) = struct.unpack('>Q', data[p:p + 8])
                (sup,) = struct.unpack('>Q', data[p + 12:p + 20])
                p += 8 + 4 + 8 * 6 + 4
                (n,) = struct.unpack('>H', data[p:p + 2]); p += 2
                for _ in range(n):
                    p += 3 + SIZES[data[p + 2]]
                (n,) = struct.unpack('>H', data[p:p + 2]); p += 2
                for _ in range(n):
                    p += 9 + SIZES[data[p + 8]]
                (n,) = struct.unpack('>H', data[p:p + 2]); p += 2
                fields = []
                for _ in range(n):
                    (nm,) = struct.unpack('>Q', data[p:p + 8])
                    fields.append((nm, data[p + 8]))
                    p += 9
                layouts[cid] = (sup, fields)
            elif t == 0x21:                     # instance
                oid, _, cid, nb = struct.unpack('>QIQI', data[p:p + 24])
                p += 24
                insts.append((oid, cid, p, nb))
                p += nb
            elif t == 0x22:                     # object array
                oid, _, n, cid = struct.unpack('>QIIQ', data[p:p + 24])
                p += 24
                arrays.append((oid, cid, n, True))
                p += 8 * n
            elif t == 0x23:                     # primitive array
                oid, _, n, ty = struct.unpack('>QIIB', data[p:p + 17])
                p += 17
                arrays.append((oid, ty, n, False))
                p += n * SIZES[ty]
            else:
                sys.exit('unknown heap dump sub-record 0x%x at %d' % (t, p))

    while p < len(data):
        tag = data[p]
        (ln,) = struct.unpack('>I', data[p + 5:p + 9])
        b = p + 9
        if tag == 0x01:
            (nid,) = struct.unpack('>Q', data[b:b + 8])
            names[nid] = data[b + 8:b + ln].decode('utf8', 'replace')
        elif tag == 0x02:
            _, cid, _, nid = struct.unpack('>IQIQ', data[b:b + 24])
            class_name[cid] = nid
        elif tag in (0x0C, 0x1C):
            segment(b, b + ln)
        p = b + ln

    # the survivor space in use holds the survivors of the last young GC
    # before the dump; the other one is empty then
    used = [sum(1 for o in insts if lo <= o[0] < hi) for lo, hi in survivor_spaces]
    frm = survivor_spaces[0] if used[0] >= used[1] else survivor_spaces[1]

    def cname(cid):
        return names.get(class_name.get(cid), '?%x' % cid)

    def region(a):
        if frm[0] <= a < frm[1]:
            return 'S'
        return 'O' if ten[0] <= a < ten[1] else 'Y'

    count, size = collections.Counter(), collections.Counter()
    states = collections.Counter()
    for oid, cid, b, nb in insts:
        name = cname(cid)
        if region(oid) == 'S':
            count[name] += 1
            size[name] += nb + 16
        if name == 'java/lang/VirtualThread':
            q = b
            c = cid
            while c:
                sup, fields = layouts[c]
                for nm, ty in fields:
                    if names.get(nm) == 'state' and ty == 10:
                        states[(region(oid), struct.unpack('>i', data[q:q + 4])[0])] += 1
                    q += SIZES[ty]
                c = sup
    queues = []
    for oid, ty, n, is_obj in arrays:
        name = cname(ty) if is_obj else PRIMS[ty]
        if region(oid) == 'S':
            count[name] += 1
            size[name] += 16 + n * (4 if is_obj else SIZES[ty])
        if is_obj and name.endswith('ForkJoinTask;'):
            queues.append(n)
    print('survivor space %#x-%#x; survivors of the last young GC by class,'
          ' %.1f MB in all:' % (frm[0], frm[1], sum(size.values()) / 1e6))
    for name, s in size.most_common(15):
        print('  %9d %11d  %s' % (count[name], s, name))
    print('VirtualThread (region, state): %s' % sorted(states.items()))
    print('ForkJoinTask[] queue arrays, lengths: %s' % sorted(queues, reverse=True))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

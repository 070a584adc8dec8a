#!/usr/bin/env python3
import os, struct
# Writes the fixture segments of tests/data/dump (see README.md). The index bytes are also built,
# independently, by tools/dump_log_test.cc, which checks that they equal these files.
G=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'golden')
out=os.path.dirname(os.path.abspath(__file__))
log=open(G+'/segment/00000000000000000000.log','rb').read()
def oi(entries, extra=b''):  # (relative offset, position)
    return b''.join(struct.pack('>ii', o, p) for o, p in entries) + extra
def ti(entries, extra=b''):  # (timestamp, relative offset)
    return b''.join(struct.pack('>qi', t, o) for t, o in entries) + extra
T=1700000000000
cases = {
 'index_ok': (log, oi([(4,221),(9,474),(14,721),(0,0),(0,0),(0,0)]),
              ti([(T+4,4),(T+9,9),(T+14,14),(0,0),(0,0)])),
 'index_empty': (log, b'', b''),
 'index_mismatch': (log, oi([(4,221),(8,474),(12,596),(16,327)]),
                    ti([(T+4,4),(T+5,7),(T+9,8),(T+8,12),(T+20,20)])),
 'index_corrupt': (log, oi([(4,221),(9,474)], b'\0\0\0\x07'),
                   ti([(T+4,4),(T+9,9)], b'\0\0\0\0\0\x01')),
 'index_below_base': (log, oi([(4,221),(-1,0)]), ti([(T+4,4),(T+9,-2)])),
 'timeindex_order': (log, oi([(4,221),(9,474),(14,721)]),
                     ti([(T+9,9),(T+14,14),(T+4,4)])),
}
B=G+'/batches/'
rd=lambda n: open(B+n+'.bin','rb').read()
v1=rd('v1_none')+rd('v1_gzip')+rd('v1_lz4_logappendtime')+rd('v1_snappy_base1000')
v0=rd('v0_none')+rd('v0_gzip')+rd('v0_snappy')+rd('v0_lz4')
cases['legacy_v1']=(v1, oi([(3,178)]), ti([(T+2,3)]))
cases['legacy_v0']=(v0, None, None)
for name,(l,i,t) in cases.items():
    d=os.path.join(out,name); os.makedirs(d, exist_ok=True)
    open(d+'/00000000000000000000.log','wb').write(l)
    if i is not None: open(d+'/00000000000000000000.index','wb').write(i)
    if t is not None: open(d+'/00000000000000000000.timeindex','wb').write(t)

# One v1 entry whose key and value hold ill-formed UTF-8, for Java's replacement rules.
import zlib
def v1_entry(offset, ts, key, value):
    body = bytes([1, 0]) + struct.pack('>q', ts) + struct.pack('>i', len(key)) + key + \
        struct.pack('>i', len(value)) + value
    msg = struct.pack('>I', zlib.crc32(body)) + body
    return struct.pack('>qi', offset, len(msg)) + msg
key = b'k\xed\xa0\x80|\xed\xa0A|\xe0\x80|\xf0\x80|\xf4\x90|\xc0|\xff|\xf0\x9f\x98\x80|\xe2\x82'
value = b'v\xed\xbf\xbf|\xf5\x80\x80\x80|\xe2\x82\xac|\xf0\x9f\x98|\xc3'
d = os.path.join(out, 'legacy_utf8'); os.makedirs(d, exist_ok=True)
open(d + '/00000000000000000000.log', 'wb').write(v1_entry(0, T, key, value))

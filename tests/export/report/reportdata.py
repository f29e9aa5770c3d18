# The data of a `hetrace report` page, for the checks of test-report.sh
# (its Python heredocs run in tests/export/report, so `import reportdata`).
import base64
import json

TAG = '<script id="ht-data" type="application/json">'


def load(path):
    """The page's data: the JSON of its ht-data script element."""
    html = open(path).read()
    start = html.index(TAG) + len(TAG)
    return json.loads(html[start:html.index('</script>', start)])


def runs(d, level, row):
    """The state runs of a timeline row at a level (-1: the exact one):
    [(time from t0 in ns, state name or None)], from the row's base64
    varints: the palette (its size k, then k state indexes + 1 or 0),
    then per run time delta << b | palette index (b: the bits of k - 1);
    k = 0: varint pairs (time delta, state index + 1 or 0)."""
    b = base64.b64decode(d["levels"][level]["rows"][row])
    out, i, t = [], 0, 0

    def varint():
        nonlocal i
        v, sh = 0, 0
        while True:
            c = b[i]
            i += 1
            v |= (c & 0x7f) << sh
            sh += 7
            if not c & 0x80:
                return v

    k = varint() if b else 0
    pal = [varint() for _ in range(k)]
    bits = max(k - 1, 0).bit_length()
    while i < len(b):
        if k:
            v = varint()
            t += v >> bits
            s = pal[v & ((1 << bits) - 1)]
        else:
            t += varint()
            s = varint()
        out.append((t, d["states"][s - 1]["n"] if s else None))
    return out

"""A log-log line plot written straight to PNG with zlib, so benchmarks need
nothing beyond python3. Text uses a built-in 3x5 pixel font, drawn at an
integer scale."""
import math
import struct
import zlib

# 3x5 glyphs, one string per row, '#' set.
FONT = {
    "0": ["###", "#.#", "#.#", "#.#", "###"], "1": [".#.", "##.", ".#.", ".#.", "###"],
    "2": ["###", "..#", "###", "#..", "###"], "3": ["###", "..#", ".##", "..#", "###"],
    "4": ["#.#", "#.#", "###", "..#", "..#"], "5": ["###", "#..", "###", "..#", "###"],
    "6": ["###", "#..", "###", "#.#", "###"], "7": ["###", "..#", ".#.", ".#.", ".#."],
    "8": ["###", "#.#", "###", "#.#", "###"], "9": ["###", "#.#", "###", "..#", "###"],
    "A": [".#.", "#.#", "###", "#.#", "#.#"], "B": ["##.", "#.#", "##.", "#.#", "##."],
    "C": [".##", "#..", "#..", "#..", ".##"], "D": ["##.", "#.#", "#.#", "#.#", "##."],
    "E": ["###", "#..", "##.", "#..", "###"], "F": ["###", "#..", "##.", "#..", "#.."],
    "G": [".##", "#..", "#.#", "#.#", ".##"], "H": ["#.#", "#.#", "###", "#.#", "#.#"],
    "I": ["###", ".#.", ".#.", ".#.", "###"], "J": ["..#", "..#", "..#", "#.#", ".#."],
    "K": ["#.#", "#.#", "##.", "#.#", "#.#"], "L": ["#..", "#..", "#..", "#..", "###"],
    "M": ["#.#", "###", "###", "#.#", "#.#"], "N": ["##.", "#.#", "#.#", "#.#", "#.#"],
    "O": [".#.", "#.#", "#.#", "#.#", ".#."], "P": ["##.", "#.#", "##.", "#..", "#.."],
    "Q": [".#.", "#.#", "#.#", "##.", ".##"], "R": ["##.", "#.#", "##.", "#.#", "#.#"],
    "S": [".##", "#..", ".#.", "..#", "##."], "T": ["###", ".#.", ".#.", ".#.", ".#."],
    "U": ["#.#", "#.#", "#.#", "#.#", "###"], "V": ["#.#", "#.#", "#.#", "#.#", ".#."],
    "W": ["#.#", "#.#", "###", "###", "#.#"], "X": ["#.#", "#.#", ".#.", "#.#", "#.#"],
    "Y": ["#.#", "#.#", ".#.", ".#.", ".#."], "Z": ["###", "..#", ".#.", "#..", "###"],
    ".": ["...", "...", "...", "...", ".#."], "-": ["...", "...", "###", "...", "..."],
    "/": ["..#", "..#", ".#.", "#..", "#.."], "(": [".#.", "#..", "#..", "#..", ".#."],
    ")": [".#.", "..#", "..#", "..#", ".#."], "=": ["...", "###", "...", "###", "..."],
    ",": ["...", "...", "...", ".#.", "#.."], ":": ["...", ".#.", "...", ".#.", "..."],
    " ": ["...", "...", "...", "...", "..."],
}

PALETTE = [(214, 39, 40), (31, 119, 180), (44, 160, 44), (148, 103, 189), (255, 127, 14), (23, 190, 207)]


class Canvas:
    def __init__(self, w, h, bg=(255, 255, 255)):
        self.w, self.h = w, h
        self.px = bytearray(bytes(bg) * (w * h))

    def set(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(c)

    def rect(self, x0, y0, x1, y1, c):
        for y in range(max(0, y0), min(self.h, y1)):
            for x in range(max(0, x0), min(self.w, x1)):
                self.set(x, y, c)

    def line(self, x0, y0, x1, y1, c, thick=1):
        dx, dy = abs(x1 - x0), abs(y1 - y0)
        n = max(dx, dy, 1)
        for i in range(n + 1):
            x = round(x0 + (x1 - x0) * i / n)
            y = round(y0 + (y1 - y0) * i / n)
            for ox in range(-(thick // 2), thick - thick // 2):
                for oy in range(-(thick // 2), thick - thick // 2):
                    self.set(x + ox, y + oy, c)

    def text(self, x, y, s, c=(0, 0, 0), scale=2):
        for ch in s.upper():
            g = FONT.get(ch, FONT[" "])
            for r, row in enumerate(g):
                for k, b in enumerate(row):
                    if b == "#":
                        self.rect(x + k * scale, y + r * scale, x + (k + 1) * scale, y + (r + 1) * scale, c)
            x += 4 * scale
        return x

    def png(self):
        raw = b"".join(b"\x00" + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3]) for y in range(self.h))

        def chunk(tag, data):
            c = struct.pack(">I", len(data)) + tag + data
            return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def fmt_num(v):
    if v >= 1:
        return "%g" % v
    return ("%.3f" % v).rstrip("0").rstrip(".")


def loglog(path, title, xlabel, ylabel, series, w=800, h=520):
    """series: list of (name, [(x, y), ...]) with x, y > 0."""
    pts = [p for _, s in series for p in s if p[0] > 0 and p[1] > 0]
    if not pts:
        raise ValueError("nothing to plot")
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    def up125(v):
        """The smallest 1, 2 or 5 times a power of ten that is >= v, as a log."""
        e = math.floor(math.log10(v))
        for m in (1, 2, 5, 10):
            if m * 10.0 ** e >= v * (1 - 1e-9):
                return math.log10(m * 10.0 ** e)
        return e + 1

    lx0, lx1 = math.floor(math.log10(min(xs))), up125(max(xs))
    ly0, ly1 = math.floor(math.log10(min(ys))), up125(max(ys))
    if lx1 <= lx0:
        lx1 = lx0 + 1
    if ly1 <= ly0:
        ly1 = ly0 + 1
    c = Canvas(w, h)
    left, right, top, bottom = 80, w - 170, 40, h - 60

    def X(v):
        return round(left + (math.log10(v) - lx0) / (lx1 - lx0) * (right - left))

    def Y(v):
        return round(bottom - (math.log10(v) - ly0) / (ly1 - ly0) * (bottom - top))

    grid, axis = (225, 225, 225), (0, 0, 0)
    for e in range(lx0, math.ceil(lx1) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** e
            if 10 ** lx0 <= v <= 10 ** lx1 * (1 + 1e-9):
                c.line(X(v), top, X(v), bottom, grid)
                lab = fmt_num(v)
                c.text(X(v) - len(lab) * 4, bottom + 8, lab)
    for e in range(ly0, math.ceil(ly1) + 1):
        for m in (1, 2, 5):
            v = m * 10.0 ** e
            if 10.0 ** ly0 <= v <= 10.0 ** ly1 * (1 + 1e-9):
                c.line(left, Y(v), right, Y(v), grid)
                lab = fmt_num(v)
                c.text(left - 8 - len(lab) * 8, Y(v) - 5, lab)
    c.line(left, bottom, right, bottom, axis)
    c.line(left, top, left, bottom, axis)
    c.text(left, 12, title, scale=3)
    c.text((left + right) // 2 - len(xlabel) * 4, h - 24, xlabel)
    c.text(8, top - 22, ylabel)
    for i, (name, s) in enumerate(series):
        col = PALETTE[i % len(PALETTE)]
        s = sorted(p for p in s if p[0] > 0 and p[1] > 0)
        for a, b in zip(s, s[1:]):
            c.line(X(a[0]), Y(a[1]), X(b[0]), Y(b[1]), col, thick=2)
        for p in s:
            c.rect(X(p[0]) - 3, Y(p[1]) - 3, X(p[0]) + 4, Y(p[1]) + 4, col)
        ly = top + 10 + i * 22
        c.rect(right + 20, ly, right + 34, ly + 10, col)
        c.text(right + 42, ly, name)
    with open(path + ".tmp", "wb") as f:
        f.write(c.png())
    import os
    os.replace(path + ".tmp", path)

#!/usr/bin/env python3
"""Exit 0 when a PNG screenshot has visible content (used by `make test-browser`).

Standard library only: decodes the IDAT stream, un-filters the rows and counts distinct pixels.
A blank page has one colour; a rendered plan report has text, bars and dots in many colours.
"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
            if depth != 8:
                sys.exit(f"{path}: unsupported bit depth {depth}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        previous = line
        yield from (bytes(line[i:i + channels]) for i in range(0, stride, channels * 7))


def main():
    distinct = set()
    for pixel in pixels(sys.argv[1]):
        distinct.add(pixel)
        if len(distinct) > 20:
            print(f"{sys.argv[1]}: not blank")
            return 0
    sys.exit(f"{sys.argv[1]}: blank screenshot ({len(distinct)} colours)")


if __name__ == "__main__":
    sys.exit(main())

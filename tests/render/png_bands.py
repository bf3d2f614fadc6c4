#!/usr/bin/env python3
"""Checks a PNG that headless chromium rendered: its size, that it is not blank, and how many horizontal
bands of a colour it shows (one per timeline row that has a segment of that colour), or that a colour
covers at least some pixels (the marks of a chart). Standard library
only: zlib and the PNG filters (8-bit RGB/RGBA, not interlaced, which is what chromium writes).

  png_bands.py FILE --width W --min-height H --colour '#3182bd' --bands N
  png_bands.py FILE --width W --min-height H --colour '#1b9e77' --min-pixels N
"""
import argparse, struct, sys, zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour_type, _, _, interlace = header
    if depth != 8 or colour_type not in (2, 6) or interlace:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour_type}, interlace {interlace})")
    channels = 3 if colour_type == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("png")
    parser.add_argument("--width", type=int, required=True)
    parser.add_argument("--min-height", type=int, required=True)
    parser.add_argument("--colour", required=True)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--bands", type=int)
    which.add_argument("--min-pixels", type=int)
    args = parser.parse_args()
    width, height, channels, rows = read_png(args.png)
    problems = []
    if width != args.width or height < args.min_height:
        problems.append(f"size {width}x{height}, expected width {args.width} and height >= {args.min_height}")
    colours = set()
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            colours.add(bytes(row[x:x + 3]))
    if len(colours) < 8:
        problems.append(f"blank or nearly: {len(colours)} distinct colours")
    want = tuple(int(args.colour[i:i + 2], 16) for i in (1, 3, 5))

    def near(row, x):
        return all(abs(row[x * channels + c] - want[c]) <= 12 for c in range(3))

    bands, inside, pixels = 0, False, 0
    for row in rows:
        here = sum(1 for x in range(width) if near(row, x))
        pixels += here
        hit = here >= 20  # a segment, not an antialiased edge
        if hit and not inside:
            bands += 1
        inside = hit
    if args.bands is not None and bands != args.bands:
        problems.append(f"{bands} bands of {args.colour}, expected {args.bands}")
    if args.min_pixels is not None and pixels < args.min_pixels:
        problems.append(f"{pixels} pixels of {args.colour}, expected at least {args.min_pixels}")
    print(f"{args.png}: {width}x{height}, {len(colours)} colours, {bands} bands and {pixels} pixels of {args.colour}")
    if problems:
        sys.exit("; ".join(problems))


main()

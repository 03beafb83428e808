#!/usr/bin/env python3
"""Seeds the fuzz corpora: fuzz/corpus/import gets the PGN files of
sample-data/ and ../shared/data/edge/ (when present), cut at game boundaries
into pieces of at most 4 KiB so that libFuzzer mutates games, not archives;
fuzz/corpus/tags gets the same pieces.
The structured targets (replay, repair) start from a few hand-made inputs.

Usage: fuzz/seed.py   (idempotent; the corpus folders are not committed)
"""

import hashlib
import pathlib
import re

FUZZ = pathlib.Path(__file__).resolve().parent
ROOT = FUZZ.parent
LIMIT = 4096


def pgn_files():
    roots = [ROOT / "sample-data", ROOT.parent / "shared" / "data" / "edge"]
    for root in roots:
        if root.is_dir():
            yield from sorted(p for p in root.rglob("*.pgn") if p.is_file())


def pieces(data):
    games = re.split(rb"(?=\n\s*\n\[Event )", data)
    piece = b""
    for game in games:
        if piece and len(piece) + len(game) > LIMIT:
            yield piece
            piece = b""
        piece += game
        while len(piece) > LIMIT:
            yield piece[:LIMIT]
            piece = piece[LIMIT:]
    if piece:
        yield piece


def write(folder, data):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def main():
    count = 0
    for path in pgn_files():
        for piece in pieces(path.read_bytes()):
            write(FUZZ / "corpus" / "import", piece)
            write(FUZZ / "corpus" / "tags", piece)
            count += 1
    # replay/repair take arbitrary-derived structs; any bytes are a valid
    # input, so a few PGN move lists give them a start.
    for text in [b"e4 e5 Nf3 Nc6 Bb5 a6", b"1. e2e4 e7e5 2. Ng1f3 0-0", b"\x01\x02\x03 d4 d5 c4"]:
        write(FUZZ / "corpus" / "replay", text)
        write(FUZZ / "corpus" / "repair", text)
    print(f"{count} import seeds")


if __name__ == "__main__":
    main()

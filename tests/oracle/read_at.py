"""python-chess reads single games of a PGN file, for `import --repair`'s test.

Usage: read_at.py GAMES.pgn START:END...
Each range is a game's byte offsets in the file (END exclusive). Each game's bytes are decoded as pgnlake decodes them
(UTF-8, else Windows-1252) and read with python-chess alone.
Prints one line per range, in order, tab-separated: START, status (`ok`;
`split` when python-chess ends the game at a second blank line after the
tags and reads the moves as a game of their own, whose mainline is then
given; `error` when python-chess logged an error: a move it cannot read or
play; `raised`), the mainline it read in UCI (space-separated).
"""

import io
import sys

import chess.pgn


def decode(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def main():
    data = open(sys.argv[1], "rb").read()
    out = sys.stdout
    for arg in sys.argv[2:]:
        start, end = (int(x) for x in arg.split(":"))
        handle = io.StringIO(decode(data[start:end]))
        try:
            game = chess.pgn.read_game(handle)
        except Exception:  # python-chess raises on some FEN tags
            out.write(f"{start}\traised\t\n")
            continue
        if game is None:
            out.write(f"{start}\traised\t\n")
            continue
        status = "error" if game.errors else "ok"
        if status == "ok" and game.end().ply() == game.ply():
            rest = chess.pgn.read_game(handle)
            if rest is not None and rest.end().ply() > rest.ply():
                game, status = rest, "error" if rest.errors else "split"
        moves = " ".join(move.uci() for move in game.mainline_moves())
        out.write(f"{start}\t{status}\t{moves}\n")


if __name__ == "__main__":
    main()

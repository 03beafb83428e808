"""Independent opening tree for the tests, computed with python-chess.

Usage: opening_tree.py GAMES.pgn GAMES.tsv PLIES
GAMES.tsv holds one line per game pgnlake accepted from the standard start:
its 1-based game number, then its `time_class`, `white_elo` and `black_elo`
as `games.parquet` has them (`-` for null), tab-separated. Prints one line
per (position, move, time class, rating band, month): EPD, SAN, time class,
band, month (YYYY-MM-01), games, the earliest ply at which one of the
row's games reached the position, tab-separated, `-` for null.

The rules are pgnlake's, written independently: positions are compared by
python-chess's transposition key (pieces, side to move, castling rights,
en passant square when a capture is legal); a position that repeats within
the first PLIES plies counts once, with the move that left it last. The band
is the greatest of 800, 1000, 1200, ..., 2200, 2400, 2500, 2600, 2700, 2800
not above the average rating (800 below 1000: lichess's rating groups are
unions of them); the month is that
of the UTCDate header, else of the Date header (null without a month).
"""

import collections
import re
import sys

import chess.pgn


def band(white, black):
    if white == "-" or black == "-":
        return "-"
    average = (int(white) + int(black)) // 2
    bands = [800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2500, 2600, 2700, 2800]
    return str(max([b for b in bands if b <= average], default=800))


def month(headers):
    for name in ("UTCDate", "Date"):
        found = re.match(r"\s*(\d{4})[.-](\d{2})", headers.get(name, ""))
        if found is None:
            if re.match(r"\s*\d{4}", headers.get(name, "")):
                return "-"
            continue
        if 1 <= int(found.group(2)) <= 12:
            return f"{found.group(1)}-{found.group(2)}-01"
        return "-"
    return "-"


def main():
    path, games_path, plies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    wanted = {}
    with open(games_path) as f:
        for line in f:
            if line.strip():
                number, time_class, white, black = line.rstrip("\n").split("\t")
                wanted[int(number)] = (time_class, band(white, black))
    games = collections.Counter()
    earliest = {}
    number = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            number += 1
            if number not in wanted:
                continue
            time_class, rating_band = wanted[number]
            dims = (time_class, rating_band, month(game.headers))
            board = game.board()
            visits = {}
            for ply, move in enumerate(list(game.mainline_moves())[:plies]):
                key = board._transposition_key()
                if key not in visits:
                    visits[key] = [board.epd(), None, ply]
                visits[key][1] = board.san(move)
                board.push(move)
            for epd, san, ply in visits.values():
                row = (epd, san) + dims
                games[row] += 1
                earliest[row] = min(earliest.get(row, ply), ply)
    for key, n in sorted(games.items()):
        print("\t".join(key) + f"\t{n}\t{earliest[key]}")


if __name__ == "__main__":
    main()

"""Independent opening tree for the tests, computed with python-chess.

Usage: opening_tree.py GAMES.pgn INDEXES PLIES
INDEXES holds the 1-based game numbers (one per line) that pgnlake accepted
from the standard start. Prints one line per (position, move):
EPD, SAN, games, earliest ply of the position, tab-separated.

The rules are pgnlake's, written independently: positions are compared by
python-chess's transposition key (pieces, side to move, castling rights,
en passant square when a capture is legal); a position that repeats within
the first PLIES plies counts once, with the move that left it last.
"""

import collections
import sys

import chess.pgn


def main():
    path, index_path, plies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(index_path) as f:
        wanted = {int(line) for line in f if line.strip()}
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
            board = game.board()
            visits = {}
            for ply, move in enumerate(list(game.mainline_moves())[:plies]):
                key = board._transposition_key()
                if key not in visits:
                    visits[key] = [board.epd(), None, ply]
                visits[key][1] = board.san(move)
                board.push(move)
            for epd, san, ply in visits.values():
                games[(epd, san)] += 1
                earliest[epd] = min(earliest.get(epd, ply), ply)
    for (epd, san), n in sorted(games.items()):
        print(f"{epd}\t{san}\t{n}\t{earliest[epd]}")


if __name__ == "__main__":
    main()

"""Oracle for `pgnlake novelty`: where each game of a PGN file leaves an
archive, recounted with python-chess from the archive's `games.parquet`
(not from its tree).

    novelty.py DATA_DIR GAMES.pgn

DATA_DIR is the archive (an import's folder or a lake); GAMES.pgn holds
the games to walk. The tree's rules, as explorer.py writes them (each
archive game's first moves within the window, every position it left).
A game's month is its UTCDate's, else its Date's; the earlier games are
the archive's of months before it (every archive game when the game has
no month). For each game, one JSON line: `novelty_ply`, the first ply p
(p < window) whose position no earlier game left, null when none; and
`earlier`, the earlier games of each ply's position, from ply 1.
"""
import json
import os
import sys

import chess
import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explorer import pos_key, read_games, replay, window  # noqa: E402


def month_of(headers):
    for tag in ("UTCDate", "Date"):
        value = headers.get(tag)
        if not value:
            continue
        parts = value.strip().replace("-", ".").split(".")
        if len(parts[0]) != 4 or not parts[0].isdigit():
            continue
        year = int(parts[0])
        if len(parts) > 1 and len(parts[1]) == 2 and parts[1].isdigit() and 1 <= int(parts[1]) <= 12:
            return (year, int(parts[1]))
        return None
    return None


def main():
    data, pgn = sys.argv[1], sys.argv[2]
    games, _ = read_games(data)
    index = replay(games)
    plies = window(data)
    with open(pgn, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            month = month_of(game.headers)
            board = game.board()
            earlier = []
            for ply, move in enumerate(game.mainline_moves(), start=1):
                if ply >= plies:
                    break
                board.push(move)
                seen = index.get(pos_key(board), [])
                if month is None:
                    earlier.append(len(seen))
                else:
                    earlier.append(sum(1 for g, _ in seen if g.month is not None and g.month < month))
            novelty = next((p for p, n in enumerate(earlier, start=1) if n == 0), None)
            print(json.dumps({"novelty_ply": novelty, "earlier": earlier}))


if __name__ == "__main__":
    main()

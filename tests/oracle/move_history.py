"""Oracle for `pgnlake explore --history`: each move's games month by
month, recounted with python-chess from `games.parquet` (not from the
tree).

    move_history.py DATA_DIR POSITION...

DATA_DIR is an import's folder or a lake; each POSITION is the UCI moves
from the start, joined by commas ("" for the start). The tree's rules,
as explorer.py writes them (each game's first moves within the window,
the move that left the position last, the counted result). Prints one
JSON object per POSITION, one a line: for each
move (UCI), its months (`YYYY-MM`) with [games, white, draws, black];
its first game, [import, game_id] (import "" outside a lake): the least
of its first month's games, a lake's imports in their names' order (the
order they were added in the tests); and the position's games per
month. Games without a month count in no month.
"""
import collections
import json
import os
import sys

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explorer import pos_key, read_games, replay  # noqa: E402


def main():
    data, positions = sys.argv[1], sys.argv[2:]
    games, _ = read_games(data)
    index = replay(games)
    for moves in positions:
        print(history(index, [m for m in moves.split(",") if m]))


def history(index, moves):
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    by_move = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0, 0]))
    position = collections.Counter()
    first = {}
    for game, move in index.get(pos_key(board), []):
        if game.month is None:
            continue
        month = "%04d-%02d" % game.month
        uci = move.uci()
        this = (month, game.import_name or "", game.game_id)
        first[uci] = min(first.get(uci, this), this)
        cell = by_move[uci][month]
        cell[0] += 1
        position[month] += 1
        if game.counted == "1-0":
            cell[1] += 1
        elif game.counted == "1/2-1/2":
            cell[2] += 1
        elif game.counted == "0-1":
            cell[3] += 1
    first = {uci: [name, game_id] for uci, (_, name, game_id) in first.items()}
    return json.dumps({"moves": by_move, "first": first, "position": position}, sort_keys=True)


if __name__ == "__main__":
    main()

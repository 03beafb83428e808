"""Oracle for `pgnlake explore --history`: each move's games month by
month, recounted with python-chess from `games.parquet` (not from the
tree).

    move_history.py DATA_DIR [UCI ...]

DATA_DIR is an import's folder or a lake; the UCI moves lead from the
start to the position. The tree's rules, as explorer.py writes them
(each game's first moves within the window, the move that left the
position last, the counted result). Prints one JSON object: for each
move (UCI), its months (`YYYY-MM`) with [games, white, draws, black];
and the position's games per month. Games without a month count in no
month.
"""
import collections
import json
import os
import sys

import chess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explorer import pos_key, read_games, replay  # noqa: E402


def main():
    data, moves = sys.argv[1], sys.argv[2:]
    games, _ = read_games(data)
    index = replay(games)
    board = chess.Board()
    for uci in moves:
        board.push_uci(uci)
    by_move = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0, 0, 0]))
    position = collections.Counter()
    for game, move in index.get(pos_key(board), []):
        if game.month is None:
            continue
        month = "%04d-%02d" % game.month
        cell = by_move[move.uci()][month]
        cell[0] += 1
        position[month] += 1
        if game.counted == "1-0":
            cell[1] += 1
        elif game.counted == "1/2-1/2":
            cell[2] += 1
        elif game.counted == "0-1":
            cell[3] += 1
    print(json.dumps({"moves": by_move, "position": position}, sort_keys=True))


if __name__ == "__main__":
    main()

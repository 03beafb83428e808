"""Independent per-game material facts for the tests, with python-chess.

Usage: material.py GAMES.pgn
Prints, per game in file order, tab-separated: final signature, white and
black material, difference, the differences after 20/40/60/80 plies (`-`
when shorter), the largest white and black leads, the first endgame ply and
its signature (`-` when none), and the bishop pairs (0/1) at the end.

Written from pgnlake's README definitions, not its code: P1 N3 B3 R5 Q9;
signatures list KQRBNP, white first; an endgame is a position where each
side has at most two pieces besides king and pawns, and a side with a queen
has no rook and at most one other piece; a bishop pair is bishops on both
square colours.
"""

import sys

import chess
import chess.pgn

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
ORDER = [chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN]


def value(board, color):
    return sum(len(board.pieces(p, color)) * v for p, v in VALUES.items())


def signature(board):
    side = lambda c: "".join(chess.piece_symbol(p).upper() * len(board.pieces(p, c)) for p in ORDER)
    return side(chess.WHITE) + "v" + side(chess.BLACK)


def is_endgame(board):
    for color in chess.COLORS:
        q = len(board.pieces(chess.QUEEN, color))
        r = len(board.pieces(chess.ROOK, color))
        m = len(board.pieces(chess.BISHOP, color)) + len(board.pieces(chess.KNIGHT, color))
        if q + r + m > 2 or (q > 0 and (q > 1 or r > 0)):
            return False
    return True


def pair(board, color):
    b = board.pieces(chess.BISHOP, color)
    return int(bool(b & chess.BB_LIGHT_SQUARES) and bool(b & chess.BB_DARK_SQUARES))


def main():
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            diff = lambda: value(board, chess.WHITE) - value(board, chess.BLACK)
            at = {}
            lead_w = max(diff(), 0)
            lead_b = max(-diff(), 0)
            endgame = (0, signature(board)) if is_endgame(board) else None
            for ply, move in enumerate(game.mainline_moves(), start=1):
                board.push(move)
                d = diff()
                lead_w, lead_b = max(lead_w, d), max(lead_b, -d)
                if ply in (20, 40, 60, 80):
                    at[ply] = d
                if endgame is None and is_endgame(board):
                    endgame = (ply, signature(board))
            fields = [
                signature(board),
                value(board, chess.WHITE),
                value(board, chess.BLACK),
                diff(),
                *[at.get(p, "-") for p in (20, 40, 60, 80)],
                lead_w,
                lead_b,
                endgame[0] if endgame else "-",
                endgame[1] if endgame else "-",
                pair(board, chess.WHITE),
                pair(board, chess.BLACK),
            ]
            print("\t".join(str(x) for x in fields))


if __name__ == "__main__":
    main()

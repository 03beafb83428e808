"""python-chess's view of every game in a PGN file, for the differential test.

Usage: differential.py GAMES.pgn [--positions]
python-chess picks the board of each game's Variant tag (chess.variant).
Prints one line per game, in file order, tab-separated:
  index (from 1), status (`ok`; `error` when python-chess logged an
  error: an illegal, ambiguous or unreadable move; `raised` when it raised,
  as on an empty FEN tag), plies of the
  mainline it read, end state (checkmate, stalemate, insufficient_material,
  fivefold_repetition, seventyfive_moves or none, checked in pgnlake's
  order), the final position occurred three times (0/1), the fifty-move
  rule can be claimed at the end (0/1); with --positions also the final
  position (FEN) and the result the board proves (`*` when none).
"""

import sys

import chess
import chess.pgn


def end_state(board):
    # A variant's own end first, seen from the side to move, as pgnlake.
    if board.is_variant_win():
        return "variant_win"
    if board.is_variant_loss():
        return "variant_loss"
    if board.is_variant_draw():
        return "variant_draw"
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_fivefold_repetition():
        return "fivefold_repetition"
    if board.is_seventyfive_moves():
        return "seventyfive_moves"
    return "none"


def main():
    out = sys.stdout
    positions = "--positions" in sys.argv[2:]
    empty = "\t-\t*" if positions else ""
    with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
        index = 0
        while True:
            try:
                game = chess.pgn.read_game(handle)
            except Exception as error:  # python-chess raises on some FEN tags
                index += 1
                out.write(f"{index}\traised\t0\tnone\t0\t0{empty}\n")
                continue
            if game is None:
                break
            index += 1
            try:
                board = game.board()
            except ValueError:  # e.g. an empty FEN tag, an unknown variant
                out.write(f"{index}\traised\t0\tnone\t0\t0{empty}\n")
                continue
            plies = 0
            for move in game.mainline_moves():
                board.push(move)
                plies += 1
            status = "error" if game.errors else "ok"
            threefold = int(board.is_repetition(3))
            fifty = int(board.halfmove_clock >= 100 and not board.is_checkmate())
            fields = [index, status, plies, end_state(board), threefold, fifty]
            if positions:
                outcome = board.outcome()
                fields += [board.fen(), outcome.result() if outcome else "*"]
            out.write("\t".join(map(str, fields)) + "\n")


if __name__ == "__main__":
    main()

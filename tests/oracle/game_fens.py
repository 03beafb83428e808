"""python-chess's FEN of every position of the games of a PGN file, for
the game page's test (`tests/it/serve_games.rs`).

Usage:
  game_fens.py GAMES.pgn
      One line per game: its Event tag, a tab, then the FEN before the
      first move and after each mainline move, tab-separated. A game's
      `Variant` tag (Chess960, Crazyhouse, ...) picks python-chess's board,
      as chess.pgn does; the FEN is `Board.fen()` (X-FEN castling,
      en passant only when a capture is legal, pockets and check counters
      for the variants that have them).
"""

import sys

import chess.pgn


def main():
    with open(sys.argv[1], encoding="utf-8") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            if game.errors:
                sys.exit(f"python-chess: {game.headers.get('Event')}: {game.errors}")
            board = game.board()
            fens = [board.fen()]
            for move in game.mainline_moves():
                board.push(move)
                fens.append(board.fen())
            print("\t".join([game.headers.get("Event", "?")] + fens))


if __name__ == "__main__":
    main()

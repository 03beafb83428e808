"""python-chess selects games by rating, ECO and a position, for `export`'s test.

Usage:
  export_select.py find GAMES.pgn OPENINGS_DIR MIN_WHITE_ELO ECO_PREFIX EPD
      Reads GAMES.pgn with python-chess and prints one line per game that
      has WhiteElo >= MIN_WHITE_ELO, an ECO (by position: the deepest
      mainline position found in the lichess chess-openings tables of
      OPENINGS_DIR, as pgnlake names a game) starting with ECO_PREFIX, and
      EPD among the positions before its mainline moves.
  export_select.py list EXPORTED.pgn
      Prints the same line for every game of a PGN file.
The line is `White|Black|Date|Round|plies|first moves (UCI)`.
"""

import csv
import pathlib
import sys

import chess
import chess.pgn


def identity(game):
    headers = game.headers
    moves = [move.uci() for move in game.mainline_moves()]
    return "|".join([
        headers.get("White", "?"),
        headers.get("Black", "?"),
        headers.get("Date", "?"),
        headers.get("Round", "?"),
        str(len(moves)),
        " ".join(moves[:12]),
    ])


def games_of(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            yield game


def opening_table(directory):
    """EPD of each table line's final position -> ECO (the first line wins)."""
    by_epd = {}
    deepest = 0
    for name in "abcde":
        with open(pathlib.Path(directory) / f"{name}.tsv", encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                board = chess.Board()
                plies = 0
                try:
                    for token in row["pgn"].split():
                        if token[0].isdigit():
                            continue
                        board.push_san(token)
                        plies += 1
                except ValueError:
                    continue
                by_epd.setdefault(board.epd(), row["eco"])
                deepest = max(deepest, plies)
    return by_epd, deepest


def eco_of(game, table, deepest):
    board = game.board()
    eco = table.get(board.epd())
    for ply, move in enumerate(game.mainline_moves(), start=1):
        if ply > deepest:
            break
        board.push(move)
        eco = table.get(board.epd(), eco)
    return eco


def reaches(game, epd):
    board = game.board()
    for move in game.mainline_moves():
        if board.epd() == epd:
            return True
        board.push(move)
    return False


def main():
    if sys.argv[1] == "list":
        for game in games_of(sys.argv[2]):
            print(identity(game))
        return
    path, openings, min_elo, prefix, epd = sys.argv[2:7]
    table, deepest = opening_table(openings)
    for game in games_of(path):
        if game.errors:
            continue
        try:
            elo = int(game.headers.get("WhiteElo", ""))
        except ValueError:
            continue
        if elo < int(min_elo):
            continue
        eco = eco_of(game, table, deepest)
        if eco is None or not eco.startswith(prefix):
            continue
        if reaches(game, epd):
            print(identity(game))


if __name__ == "__main__":
    main()

"""Independent `pgnlake search` for the tests: scoutfish's JSON query
language, as docs/search.md ("What a query means") defines it, with
python-chess.

Usage:
  scout_search.py GAMES.pgn IDS.txt QUERIES.json
      GAMES.pgn holds games exported by pgnlake, in order; IDS.txt one
      game_id per line, the i-th for the i-th game. QUERIES.json is a JSON
      array of queries: objects as in the doc, or strings holding a full
      FEN (a plain FEN query, `{"fen": FEN}`). Prints one JSON object per
      line per listed match, queries in order, games in input order:
      {"query": INDEX, "game_id": ID, "ply": [P1, ...]}.
  scout_search.py --stats GAMES.pgn IDS.txt QUERIES.json GAMES.tsv
      GAMES.tsv has one line per game: game_id, time_class, white_elo,
      black_elo, month (YYYY-MM) and counted_result (1-0, 0-1, 1/2-1/2),
      tab-separated, `-` for null (a game without a counted result counts
      in "games" only). Prints one JSON object per query:
      {"query": INDEX, "total": COUNTS, "by_speed": {TIME_CLASS: COUNTS},
      "by_band": {BAND: COUNTS}, "by_month": {MONTH: COUNTS}}, COUNTS being
      {"games", "white", "draws", "black"} over the listed games (after
      skip and limit); `-` is the key of a null.

Games of a variant other than standard, Chess960 or From Position are not
searched; their ids are listed once on stderr. The declared result is the
Result tag when it is standard once normalised as docs/rules.md says, else
the termination marker, else `*`. The rating band is opening_tree.py's.

The rules, written from the doc alone: a game is replayed from its start
(ply 0, the set-up position for a FEN tag) to its final position included;
the move of a position is the mainline move played from it (none at the
final position, where no move rule holds). A query's conditions are
flattened; the current condition is tested position by position, the next
one from the next position on; a streak's condition whose streak already
recorded a ply not directly before restarts the whole query at condition 0,
tested at the same position; only a game's first match counts; a failed
`result` leaves the game at once. `skip` and `limit` count matching games
in input order.
"""

import collections
import json
import re
import sys

import chess.pgn

from opening_tree import band  # one rule of the bands for the oracles

PIECES = {"P": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP,
          "R": chess.ROOK, "Q": chess.QUEEN, "K": chess.KING}
VALUES = {chess.PAWN: 0, chess.KNIGHT: 753, chess.BISHOP: 826,
          chess.ROOK: 1285, chess.QUEEN: 2513, chess.KING: 0}


# ---------------------------------------------------------------- reading


class Builder(chess.pgn.GameBuilder):
    """python-chess's builder, keeping the Result tag as read (python-chess
    defaults it to `*`) and the termination marker (which python-chess
    writes over a `*` tag) apart."""

    def begin_game(self):
        super().begin_game()
        self.game.tag = self.game.marker = None

    def visit_header(self, tagname, tagvalue):
        super().visit_header(tagname, tagvalue)
        if tagname == "Result":
            self.game.tag = tagvalue

    def visit_result(self, result):
        self.game.marker = result


def normalise_result(text):
    """The doc's normalisation (docs/rules.md, Result audit), else None."""
    if text is None:
        return None
    text = text.strip().replace("\u2013", "-").replace("\u2014", "-")
    table = {"1-0": "1-0", "1:0": "1-0", "0-1": "0-1", "0:1": "0-1",
             "1/2-1/2": "1/2-1/2", "1/2": "1/2-1/2", "\u00bd-\u00bd": "1/2-1/2",
             "0.5-0.5": "1/2-1/2", "1/2:1/2": "1/2-1/2", "*": "*"}
    return table.get(text)


def declared_result(game):
    """The Result tag when standard, else the marker, else `*`."""
    return normalise_result(game.tag) or normalise_result(game.marker) or "*"


def positions(game, board):
    """(ply, board, move or None) for ply 0 to the final position."""
    out = []
    for ply, move in enumerate(game.mainline_moves()):
        out.append((ply, board.copy(stack=False), move))
        board.push(move)
    out.append((len(out), board.copy(stack=False), None))
    return out


def read_games(pgn_path, ids_path):
    """Yields (game_id, declared result, positions); variant games skipped."""
    with open(ids_path) as f:
        ids = [int(line) for line in f if line.strip()]
    skipped = []
    with open(pgn_path, encoding="utf-8", errors="replace") as handle:
        for game_id in ids:
            game = chess.pgn.read_game(handle, Visitor=Builder)
            if game is None:
                sys.exit(f"scout_search: {pgn_path} has fewer games than {ids_path}")
            try:
                board = game.board()
            except ValueError as error:  # an unknown variant, a bad FEN tag
                if "Variant" not in game.headers:
                    print(f"scout_search: game {game_id} not searched: {error}", file=sys.stderr)
                    continue
                board = None
            if board is None or type(board) is not chess.Board:
                skipped.append(game_id)
                continue
            if not all(game.mainline_moves()):
                print(f"scout_search: game {game_id} not searched: a null move", file=sys.stderr)
                continue
            if game.errors:  # searched as far as python-chess read it
                print(f"scout_search: game {game_id}: {game.errors}", file=sys.stderr)
            yield game_id, declared_result(game), positions(game, board)
        if chess.pgn.read_game(handle) is not None:
            sys.exit(f"scout_search: {pgn_path} has more games than {ids_path}")
    if skipped:
        print("scout_search: variant games skipped: " + " ".join(map(str, skipped)),
              file=sys.stderr)


# ---------------------------------------------------------------- rules


def as_list(value):
    return value if isinstance(value, list) else [value]


def letters(value):
    """The piece kinds of a `moved` or `captured` string (either case)."""
    return {PIECES[ch] for ch in "".join(as_list(value)).upper() if ch in PIECES}


def parse_san(san, color):
    """A move rule's SAN: (color, kind, square, castling side, from file,
    from rank); castling side is None, "K" or "Q"."""
    san = re.sub(r"[+#!?]+$", "", san.strip())
    if san in ("O-O", "0-0"):
        return (color, chess.KING, None, "K", None, None)
    if san in ("O-O-O", "0-0-0"):
        return (color, chess.KING, None, "Q", None, None)
    piece = re.fullmatch(r"([KQRBN])([a-h])?([1-8])?x?([a-h][1-8])", san)
    if piece:
        kind, file, rank, square = piece.groups()
        return (color, PIECES[kind], chess.parse_square(square), None,
                None if file is None else "abcdefgh".index(file),
                None if rank is None else int(rank) - 1)
    pawn = re.fullmatch(r"P?(?:[a-h]x?)?([a-h][1-8])(?:=?[QRBNK])?", san)
    if pawn:
        return (color, chess.PAWN, chess.parse_square(pawn.group(1)), None, None, None)
    raise ValueError(f"bad SAN {san!r}")


def move_matches(board, move, spec):
    color, kind, square, castle, file, rank = spec
    if board.turn != color:
        return False
    if castle is not None:
        if castle == "K":
            return board.is_kingside_castling(move)
        return board.is_queenside_castling(move)
    if board.is_castling(move):
        return False
    if board.piece_type_at(move.from_square) != kind or move.to_square != square:
        return False
    if file is not None and chess.square_file(move.from_square) != file:
        return False
    if rank is not None and chess.square_rank(move.from_square) != rank:
        return False
    return True


def sub_fen_holds(board, pattern):
    for color in chess.COLORS:
        for kind in chess.PIECE_TYPES:
            want = pattern.pieces_mask(kind, color)
            if want & ~board.pieces_mask(kind, color):
                return False
    return True


def material_of_code(code):
    """Counts per (colour, kind) of a code like KBNKP."""
    second = code.index("K", code.index("K") + 1)
    counts = collections.Counter()
    for i, ch in enumerate(code):
        counts[(chess.WHITE if i < second else chess.BLACK, PIECES[ch])] += 1
    return counts


def material_of_board(board):
    return collections.Counter({(color, kind): len(board.pieces(kind, color))
                                for color in chess.COLORS for kind in chess.PIECE_TYPES
                                if board.pieces(kind, color)})


def imbalance_of_code(code):
    white, black = code.split("v")
    non_pawn = sum(VALUES[PIECES[ch]] for ch in white) - sum(VALUES[PIECES[ch]] for ch in black)
    return non_pawn, white.count("P") - black.count("P")


def imbalance_of_board(board):
    non_pawn = sum(VALUES[kind] * (len(board.pieces(kind, chess.WHITE))
                                   - len(board.pieces(kind, chess.BLACK)))
                   for kind in chess.PIECE_TYPES)
    pawns = len(board.pieces(chess.PAWN, chess.WHITE)) - len(board.pieces(chess.PAWN, chess.BLACK))
    return non_pawn, pawns


def fen_key(fen):
    """The opening tree's position key of a full FEN."""
    board = chess.Board(fen, chess960=True)
    return board._transposition_key()


def captured_kind(board, move):
    if board.is_en_passant(move):
        return chess.PAWN
    return board.piece_type_at(move.to_square)


def compile_condition(cond):
    """A condition as a list of tests f(board, move) -> bool (move None at
    the final position), and the results its `result` rule allows (None
    without one)."""
    tests = []
    results = None
    moves = []
    for key, value in cond.items():
        if key == "sub-fen":
            patterns = [chess.BaseBoard(f.split()[0]) for f in as_list(value)]
            tests.append(lambda b, m, p=patterns: any(sub_fen_holds(b, x) for x in p))
        elif key == "material":
            codes = [material_of_code(c) for c in as_list(value)]
            tests.append(lambda b, m, c=codes: material_of_board(b) in c)
        elif key == "imbalance":
            codes = [imbalance_of_code(c) for c in as_list(value)]
            tests.append(lambda b, m, c=codes: imbalance_of_board(b) in c)
        elif key in ("white-move", "black-move"):
            color = chess.WHITE if key == "white-move" else chess.BLACK
            moves += [parse_san(s, color) for s in as_list(value)]
        elif key == "moved":
            kinds = letters(value)
            tests.append(lambda b, m, k=kinds: m is not None and b.piece_type_at(m.from_square) in k)
        elif key == "captured":
            kinds = letters(value)
            if kinds:
                tests.append(lambda b, m, k=kinds: m is not None and b.is_capture(m)
                             and captured_kind(b, m) in k)
            else:
                tests.append(lambda b, m: m is not None and not b.is_capture(m))
        elif key == "stm":
            color = {"white": chess.WHITE, "black": chess.BLACK}[value.lower()]
            tests.append(lambda b, m, c=color: b.turn == c)
        elif key == "result":
            results = set(as_list(value))
        elif key == "result-type":
            mate = {"mate": True, "stalemate": False}[value]
            tests.append(lambda b, m, x=mate: m is None and not any(b.legal_moves)
                         and b.is_check() == x)
        elif key == "pass":
            pass
        elif key == "fen":
            keys = {fen_key(f) for f in as_list(value)}
            tests.append(lambda b, m, k=keys: b._transposition_key() in k)
        else:
            raise ValueError(f"unknown rule {key!r}")
    if moves:
        tests.append(lambda b, m, s=moves: m is not None and any(move_matches(b, m, x) for x in s))
    return tests, results


# ---------------------------------------------------------------- queries


def parse_query(query):
    """(conditions, skip, limit); a condition is (tests, results,
    index of its streak's first condition or None)."""
    if isinstance(query, str):
        query = {"fen": query}
    query = dict(query)
    skip = query.pop("skip", 0)
    limit = query.pop("limit", None) or None  # 0: no limit, as scoutfish
    flat = []

    def streak(items):
        first = len(flat)
        for item in items:
            flat.append(compile_condition(item) + (first,))

    if "sequence" in query:
        for item in query["sequence"]:
            if "streak" in item:
                streak(item["streak"])
            else:
                flat.append(compile_condition(item) + (None,))
    elif "streak" in query:
        streak(query["streak"])
    else:
        flat.append(compile_condition(query) + (None,))
    return flat, skip, limit


def holds(condition, board, move):
    tests = condition[0]
    return all(test(board, move) for test in tests)


def match_game(conditions, result, game_positions):
    """The recorded plies of the game's first match, else None."""
    current, plies = 0, []
    for ply, board, move in game_positions:
        streak_first = conditions[current][2]
        if streak_first is not None and current > streak_first and plies[-1] != ply - 1:
            current, plies = 0, []
        condition = conditions[current]
        if condition[1] is not None and result not in condition[1]:
            return None  # the result never changes: the game cannot match
        if not holds(condition, board, move):
            continue
        plies.append(ply)
        if current == len(conditions) - 1:
            return plies
        current += 1
    return None


def search(pgn_path, ids_path, queries):
    """Per query, the listed (game_id, plies) after skip and limit."""
    parsed = [parse_query(q) for q in queries]
    found = [[] for _ in queries]
    matched = [0] * len(queries)
    for game_id, result, game_positions in read_games(pgn_path, ids_path):
        for i, (conditions, skip, limit) in enumerate(parsed):
            if limit is not None and matched[i] >= skip + limit:
                continue  # the scan stopped
            plies = match_game(conditions, result, game_positions)
            if plies is None:
                continue
            matched[i] += 1
            if matched[i] > skip:
                found[i].append((game_id, plies))
    return found


# ---------------------------------------------------------------- statistics


def read_tsv(path):
    rows = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                game_id, time_class, white, black, month, result = line.rstrip("\n").split("\t")
                rows[int(game_id)] = (time_class, band(white, black), month, result)
    return rows


def empty_counts():
    return {"games": 0, "white": 0, "draws": 0, "black": 0}


def add(counts, result):
    counts["games"] += 1
    column = {"1-0": "white", "1/2-1/2": "draws", "0-1": "black"}.get(result)
    if column:
        counts[column] += 1


def stats(index, listed, rows):
    total = empty_counts()
    groups = {"by_speed": {}, "by_band": {}, "by_month": {}}
    for game_id, _ in listed:
        if game_id not in rows:
            sys.exit(f"scout_search: game {game_id} is not in the TSV")
        time_class, rating_band, month, result = rows[game_id]
        add(total, result)
        for name, key in (("by_speed", time_class), ("by_band", rating_band), ("by_month", month)):
            add(groups[name].setdefault(key, empty_counts()), result)
    out = {"query": index, "total": total}
    for name, group in groups.items():
        out[name] = dict(sorted(group.items()))
    return out


def main():
    args = sys.argv[1:]
    with_stats = args[:1] == ["--stats"]
    if with_stats:
        args = args[1:]
    pgn_path, ids_path, queries_path = args[:3]
    with open(queries_path) as f:
        queries = json.load(f)
    found = search(pgn_path, ids_path, queries)
    if with_stats:
        rows = read_tsv(args[3])
        for i, listed in enumerate(found):
            print(json.dumps(stats(i, listed, rows)))
        return
    for i, listed in enumerate(found):
        for game_id, plies in listed:
            print(json.dumps({"query": i, "game_id": game_id, "ply": plies}))


if __name__ == "__main__":
    main()

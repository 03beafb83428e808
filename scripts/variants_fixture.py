#!/usr/bin/env python3
"""Write sample-data/variants.pgn: lichess-style games in the lichess variants.

Deterministic: every random choice comes from random.Random(SEED + k) with a
fixed k per game, and python-chess generates moves in a fixed order, so
re-running the script (same python-chess version, here 1.11.2) writes a
byte-identical file. Run with the test venv's interpreter:

    ~/.cache/pgnlake-target/test-venv/bin/python scripts/variants_fixture.py

After writing, the script reads the file back with chess.pgn.read_game and
prints one line per game (what python-chess makes of it). Pass --no-table to
skip that.

Moves are SAN exactly as python-chess writes them (board.san(move)); note that
python-chess writes a pawn drop as a bare "@e4" (pieces as "N@f3"). Game 15 is
hand-written with the other pawn-drop spelling, "P@e4" (as lichess writes it).
Most games come from a biased random search (captures/checks/target-specific
moves weighted up, and any move reaching the wanted ending taken at once), so
they are legal but not good chess. python-chess suffixes "#" to any move after
which the side to move has a variant win or loss (king exploded, king on the
hill, third check, last piece gone, ...), not only to checkmates; those
suffixes are kept as written.

Games, in file order (0-based):

 0  Standard (Variant "Standard"): scholar's mate, 1-0.
 1  Atomic: white explodes black's king with a capture (variant win), 1-0.
 2  Atomic: an ordinary checkmate, both kings still on the board, 0-1.
 3  Antichess (Variant "Antichess"): white loses all its pieces and, to move
    with nothing left, wins, 1-0.
 4  Giveaway (Variant "Giveaway", GiveawayBoard, castling allowed): black to
    move is stalemated with pieces left and wins, 0-1.
 5  King of the Hill (Variant "King of the Hill"): white king reaches a
    centre square, 1-0.
 6  King of the Hill spelled "KOTH": black king reaches the centre, 0-1.
 7  Three-check (Variant "Three-check"): white gives three checks, 1-0.
 8  Three-check spelled "3-check": black gives three checks, 0-1.
 9  Three-check from a FEN with python-chess's remaining-checks field
    ("... w KQkq - 2+3 0 4": white has 2 checks left to give, black 3);
    FEN + SetUp tags; white gives the remaining two checks, 1-0.
10  Three-check from a FEN in the older lichess style with checks *given*
    appended ("... 0 1 +1+2"); black gives its third check, 0-1.
11  Crazyhouse: ends in checkmate delivered by a drop.
12  Crazyhouse from a FEN with pockets ("...R1BQKBNR[Nn] b KQkq - 0 4",
    as CrazyhouseBoard.fen() writes it; black to move, so movetext starts
    "4..."), ends in checkmate.
13  Crazyhouse: the same board (placement, side to move, castling) occurs
    three times but the pockets differ the third time ([P] vs [] for white,
    [p] vs [pp] for black), so it is NOT a threefold in crazyhouse; the game
    goes on afterwards and ends in checkmate.
14  Crazyhouse: a genuine threefold repetition (board and pockets), then a
    draw by agreement, 1/2-1/2.
15  Crazyhouse with its first pawn drop respelled "P@e4" by hand (python-chess
    writes "@e4"; its later pawn drops keep python-chess's bare form, so the
    game mixes both); python-chess reads it fine. Ends in checkmate, 0-1.
16  Horde from a FEN with a handful of white pawns left: black captures the
    whole horde (variant win for black), 0-1.
17  Horde from the start position (no FEN tag): some moves, then white wins
    on time ("Time forfeit", 1-0), no variant end.
18  Racing Kings: white's king reaches rank 8 and black's cannot follow, 1-0.
19  Racing Kings: white's king reaches rank 8, black's follows on the very
    next move, draw 1/2-1/2.
20  King of the Hill whose Result contradicts the ending: white's king reaches
    the centre (variant win for white) but Result is "0-1".
21  Atomic with a crazyhouse-style drop ("N@e5") mid-game: illegal, must be
    rejected. python-chess raises InvalidMoveError (no drops outside ZH).
22  Atomic with a king capture, legal in standard chess but illegal in
    atomic (a king may not capture): must be rejected.
23  Antichess where a player ignores a compulsory capture (a move legal in
    standard chess): must be rejected.
24  Variant "Shogi" with made-up shogi-notation moves: unsupported, must be
    rejected (python-chess: find_variant raises ValueError, recorded in
    game.errors, and it falls back to chess.Board for the moves).
"""

import io
import logging
import random
import string
import sys
from pathlib import Path

import chess
import chess.pgn
import chess.variant as V

SEED = 20250501
OUT = Path(__file__).resolve().parent.parent / "sample-data" / "variants.pgn"

NAMES = [
    "bombkoala", "Zugzwang_Zoe", "atomicharry", "pawnstorm77", "KnightRider_09",
    "hill_climber", "checkcheckmate", "dropitlikeitshot", "hordeMaster", "racer_x",
    "giveaway_guru", "antiqueen", "Blitzkrieg42", "e4ever", "nimzo_fan",
    "lucky_lasker", "ZHwizard", "kingwalker", "triplecheck3", "sac_everything",
    "BoomBoomPow", "tempo_thief", "KotHking", "racingrook", "losingisfun",
]


# ---------------------------------------------------------------- search ----

def play(board, sans):
    """Push SAN moves (as given) and return the moves."""
    moves = []
    for san in sans:
        move = board.parse_san(san)
        board.push(move)
        moves.append(move)
    return moves


def search(make_board, target, bias, rng, *, max_plies=60, min_plies=0,
           tries=400, prefix=()):
    """Random playouts from make_board() (after SAN prefix) until target(board)
    holds after a move; returns (start board, moves).

    At each ply, a legal move that reaches the target is taken at once (if at
    least min_plies have been played); otherwise a move is drawn with weights
    bias(board, move), never one that ends the game some other way.
    """
    for _ in range(tries):
        board = make_board()
        start = board.copy(stack=False)
        moves = play(board, prefix)
        for ply in range(len(moves), max_plies):
            legal = list(board.legal_moves)
            finishing, others = [], []
            for move in legal:
                board.push(move)
                if target(board):
                    finishing.append(move)
                elif not board.is_game_over():
                    others.append(move)
                board.pop()
            if finishing and ply + 1 >= min_plies:
                move = rng.choice(finishing)
                board.push(move)
                moves.append(move)
                return start, moves
            if not others:
                break
            weights = [bias(board, m) for m in others]
            move = rng.choices(others, weights)[0]
            board.push(move)
            moves.append(move)
    raise RuntimeError("search failed")


def generic_bias(capture=3.0, check=3.0, drop=1.0):
    def bias(board, move):
        w = 1.0
        if board.is_capture(move):
            w *= capture
        if board.gives_check(move):
            w *= check
        if move.drop:
            w *= drop
        return w
    return bias


def king_bias(color, toward, weight=12.0, base=None):
    """Favour king moves of `color` that get closer to the squares `toward`."""
    base = base or generic_bias()

    def dist(sq):
        return min(chess.square_distance(sq, t) for t in toward)

    def bias(board, move):
        w = base(board, move)
        if board.turn == color and board.piece_type_at(move.from_square) == chess.KING:
            if dist(move.to_square) < dist(move.from_square):
                w *= weight
        return w
    return bias


# ------------------------------------------------------------------ games ----

class G:
    """One game: headers beyond the generic ones, start board, moves (or raw
    movetext for hand-written/illegal games)."""

    def __init__(self, variant, event, result, *, board=None, moves=(),
                 movetext=None, termination="Normal", fen_tag=False,
                 time_control="180+2"):
        self.variant = variant
        self.event = event
        self.result = result
        self.board = board
        self.moves = list(moves)
        self.movetext = movetext
        self.termination = termination
        self.fen_tag = fen_tag
        self.time_control = time_control


def movetext_tokens(board, moves):
    board = board.copy(stack=False)
    tokens = []
    for i, move in enumerate(moves):
        if board.turn == chess.WHITE:
            tokens.append(f"{board.fullmove_number}.")
        elif i == 0:
            tokens.append(f"{board.fullmove_number}...")
        tokens.append(board.san(move))
        board.push(move)
    return tokens


def wrap(tokens, width=80):
    lines, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    if line:
        lines.append(line)
    return "\n".join(lines)


def outcome_of(board, moves):
    b = board.copy(stack=False)
    for m in moves:
        b.push(m)
    return b


def build_games():
    games = []

    def rng(k):
        return random.Random(SEED + k)

    # 0. Standard scholar's mate.
    b = chess.Board()
    mv = play(b.copy(), ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"])
    games.append(G("Standard", "Rated Blitz game", "1-0", board=b, moves=mv,
                   time_control="300+3"))

    # 1. Atomic: king explosion by white.
    start, mv = search(V.AtomicBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.BLACK,
                       generic_bias(capture=2.0, check=2.0), rng(1),
                       min_plies=15, max_plies=50)
    games.append(G("Atomic", "Rated Atomic game", "1-0", board=start, moves=mv))

    # 2. Atomic: ordinary checkmate, black mates.
    start, mv = search(V.AtomicBoard,
                       lambda x: x.is_checkmate() and not x.is_variant_end()
                       and x.turn == chess.WHITE,
                       generic_bias(capture=1.5, check=6.0), rng(2),
                       min_plies=8, max_plies=50, tries=3000)
    games.append(G("Atomic", "Rated Atomic game", "0-1", board=start, moves=mv))

    # 3. Antichess: white loses everything, to move with no pieces: 1-0.
    def giveaway_bias(loser):
        def bias(board, move):
            w = 1.0
            if board.turn == loser:
                board.push(move)
                # our moved piece en prise = good
                if board.is_attacked_by(not loser, move.to_square):
                    w *= 6.0
                board.pop()
            else:
                board.push(move)
                # the capturer prefers not to leave its piece en prise
                if not board.is_attacked_by(loser, move.to_square):
                    w *= 3.0
                board.pop()
            return w
        return bias

    start, mv = search(V.AntichessBoard,
                       lambda x: x.turn == chess.WHITE and not x.occupied_co[chess.WHITE],
                       giveaway_bias(chess.WHITE), rng(3),
                       min_plies=20, max_plies=70, tries=2000)
    games.append(G("Antichess", "Rated Antichess game", "1-0", board=start, moves=mv))

    # 4. Giveaway: black to move, stalemated with pieces left, wins 0-1.
    def stalemate_bias(side):
        def bias(board, move):
            w = 1.0
            if board.is_capture(move):
                w *= 2.0
            board.push(move)
            n = board.legal_moves.count() if board.turn == side else None
            board.pop()
            if board.turn == side and board.piece_type_at(move.from_square) == chess.PAWN:
                w *= 3.0
            if n is not None and n <= 2:
                w *= 4.0
            return w
        return bias

    start, mv = search(V.GiveawayBoard,
                       lambda x: x.turn == chess.BLACK and x.occupied_co[chess.BLACK]
                       and x.is_stalemate(),
                       stalemate_bias(chess.BLACK), rng(4),
                       min_plies=16, max_plies=80, tries=4000)
    games.append(G("Giveaway", "Casual Antichess game", "0-1", board=start, moves=mv,
                   time_control="60+0"))

    # 5. KOTH: white king to the centre.
    start, mv = search(V.KingOfTheHillBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.BLACK,
                       king_bias(chess.WHITE, [chess.D4, chess.E4], weight=8.0),
                       rng(5), min_plies=14, max_plies=60)
    games.append(G("King of the Hill", "Rated King of the Hill game", "1-0",
                   board=start, moves=mv))

    # 6. KOTH spelled "KOTH": black king to the centre.
    start, mv = search(V.KingOfTheHillBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.WHITE,
                       king_bias(chess.BLACK, [chess.D5, chess.E5], weight=8.0),
                       rng(6), min_plies=17, max_plies=60)
    games.append(G("KOTH", "Rated King of the Hill game", "0-1", board=start,
                   moves=mv, time_control="60+1"))

    # 7. Three-check: white gives three checks.
    start, mv = search(V.ThreeCheckBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.BLACK,
                       generic_bias(capture=2.0, check=4.0), rng(7),
                       min_plies=15, max_plies=60)
    games.append(G("Three-check", "Rated Three-check game", "1-0", board=start,
                   moves=mv))

    # 8. "3-check": black gives three checks.
    start, mv = search(V.ThreeCheckBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.WHITE,
                       generic_bias(capture=2.0, check=4.0), rng(8),
                       min_plies=18, max_plies=60)
    games.append(G("3-check", "Rated Three-check game", "0-1", board=start,
                   moves=mv, time_control="120+1"))

    # 9. Three-check from a FEN (python-chess remaining-checks field).
    pre = V.ThreeCheckBoard()
    play(pre, ["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Kxf7"])   # white gave 1 check
    fen9 = pre.fen()
    start, mv = search(lambda: V.ThreeCheckBoard(fen9),
                       lambda x: x.is_variant_loss() and x.turn == chess.BLACK,
                       generic_bias(capture=2.0, check=4.0), rng(9),
                       min_plies=8, max_plies=50)
    games.append(G("Three-check", "Rated Three-check game", "1-0", board=start,
                   moves=mv, fen_tag=True))

    # 10. Three-check from a lichess-style FEN, "+W+B" checks given appended.
    pre = V.ThreeCheckBoard()
    play(pre, ["d4", "e5", "dxe5", "Bb4+", "c3", "Bxc3+", "Nxc3"])  # black gave 2
    fen10 = pre.fen()                      # "... b kq - 3+1 0 4"
    fields = fen10.split()
    w_left, b_left = map(int, fields[4].split("+"))
    fen10_lichess = " ".join(fields[:4] + fields[5:] + [f"+{3 - w_left}+{3 - b_left}"])
    assert V.ThreeCheckBoard(fen10_lichess).fen() == fen10
    start, mv = search(lambda: V.ThreeCheckBoard(fen10_lichess),
                       lambda x: x.is_variant_loss() and x.turn == chess.WHITE,
                       generic_bias(capture=2.0, check=3.0), rng(10),
                       min_plies=9, max_plies=50)
    g = G("Three-check", "Rated Three-check game", "0-1", board=start, moves=mv,
          fen_tag=True)
    g.fen_override = fen10_lichess
    games.append(g)

    # 11. Crazyhouse: mate by a drop.
    start, mv = search(V.CrazyhouseBoard,
                       lambda x: x.is_checkmate() and x.move_stack[-1].drop is not None,
                       generic_bias(capture=3.0, check=3.0, drop=1.0), rng(11),
                       min_plies=20, max_plies=60, tries=2000)
    games.append(G("Crazyhouse", "Rated Crazyhouse game", "1-0" if len(mv) % 2 else "0-1",
                   board=start, moves=mv))

    # 12. Crazyhouse from a FEN with pockets [Nn].
    pre = V.CrazyhouseBoard()
    play(pre, ["e4", "Nf6", "Nc3", "d6", "Nd5", "Nxd5", "exd5"])
    fen12 = pre.fen()
    assert "[Nn]" in fen12, fen12
    start, mv = search(lambda: V.CrazyhouseBoard(fen12),
                       lambda x: x.is_checkmate(),
                       generic_bias(capture=3.0, check=3.0), rng(12),
                       min_plies=14, max_plies=60, tries=2000)
    games.append(G("Crazyhouse", "Rated Crazyhouse game",
                   "0-1" if len(mv) % 2 else "1-0", board=start, moves=mv,
                   fen_tag=True, time_control="120+2"))

    # 13. Crazyhouse: board repeats 3x, pockets differ -> no threefold.
    rep_line = ["e4", "d5", "exd5", "Qxd5", "Nc3", "Qd8", "Nf3", "Nf6",   # A, [P]/[p]
                "Ng1", "Ng8", "Nf3", "Nf6",                                # A again
                "@e4", "Nxe4", "Be2", "Nf6", "Bd3", "Bd7", "Bf1", "Bc8"]   # A, []/[pp]
    start, mv = search(V.CrazyhouseBoard, lambda x: x.is_checkmate(),
                       generic_bias(capture=3.0, check=3.0), rng(13),
                       prefix=rep_line, min_plies=len(rep_line) + 10,
                       max_plies=len(rep_line) + 50, tries=2000)
    games.append(G("Crazyhouse", "Rated Crazyhouse game",
                   "1-0" if len(mv) % 2 else "0-1", board=start, moves=mv))

    # 14. Crazyhouse: genuine threefold, draw agreed.
    b = V.CrazyhouseBoard()
    mv = play(b.copy(), ["e4", "e5", "Nf3", "Nc6", "d4", "exd4", "Nxd4", "Nxd4",
                         "Qxd4", "Qf6", "Qd1", "Qd8", "Qd4", "Qf6", "Qd1", "Qd8",
                         "Qd4"])
    games.append(G("Crazyhouse", "Rated Crazyhouse game", "1/2-1/2", board=b,
                   moves=mv))

    # 15. Crazyhouse, hand-written form "P@e4" for one pawn drop (python-chess
    # writes "@e4"); the moves are searched, only that token is respelled.
    start, mv = search(V.CrazyhouseBoard, lambda x: x.is_checkmate(),
                       generic_bias(capture=3.0, check=3.0), rng(15),
                       prefix=["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5", "Nf3", "@e4"],
                       min_plies=20, max_plies=60, tries=2000)
    tokens = movetext_tokens(start, mv)
    tokens[tokens.index("@e4")] = "P@e4"
    result = "1-0" if len(mv) % 2 else "0-1"
    games.append(G("Crazyhouse", "Rated Crazyhouse game", result, board=start,
                   moves=mv, movetext=wrap(tokens + [result])))

    # 16. Horde from a FEN with few white pawns: black captures them all.
    fen16 = "4k3/2q5/8/1r6/P7/3P4/1P3PP1/8 b - - 0 31"
    assert V.HordeBoard(fen16).is_valid()
    start, mv = search(lambda: V.HordeBoard(fen16),
                       lambda x: x.turn == chess.WHITE and not x.occupied_co[chess.WHITE],
                       generic_bias(capture=20.0, check=1.0), rng(16),
                       min_plies=8, max_plies=50, tries=2000)
    games.append(G("Horde", "Rated Horde game", "0-1", board=start, moves=mv,
                   fen_tag=True))

    # 17. Horde from the start, white wins on time.
    start, mv = search(V.HordeBoard, lambda x: len(x.move_stack) >= 26 and not x.is_game_over(),
                       generic_bias(capture=2.0, check=2.0), rng(17),
                       min_plies=26, max_plies=27)
    games.append(G("Horde", "Rated Horde game", "1-0", board=start, moves=mv,
                   termination="Time forfeit", time_control="60+0"))

    # 18./19. Racing Kings.
    def race_bias(board, move):
        w = 1.0
        if board.piece_type_at(move.from_square) == chess.KING:
            d = chess.square_rank(move.to_square) - chess.square_rank(move.from_square)
            w *= {1: 10.0, 0: 1.5, -1: 0.3}[d]
        if board.is_capture(move):
            w *= 2.0
        return w

    start, mv = search(V.RacingKingsBoard,
                       lambda x: x.is_variant_end() and x.is_variant_loss()
                       and x.turn == chess.BLACK,
                       race_bias, rng(18), min_plies=14, max_plies=60)
    games.append(G("Racing Kings", "Rated Racing Kings game", "1-0", board=start,
                   moves=mv))

    start, mv = search(V.RacingKingsBoard,
                       lambda x: x.is_variant_draw(),
                       race_bias, rng(19), min_plies=14, max_plies=60, tries=2000)
    games.append(G("Racing Kings", "Rated Racing Kings game", "1/2-1/2",
                   board=start, moves=mv, time_control="60+0"))

    # 20. KOTH: white reaches the centre, but Result says 0-1.
    start, mv = search(V.KingOfTheHillBoard,
                       lambda x: x.is_variant_loss() and x.turn == chess.BLACK,
                       king_bias(chess.WHITE, [chess.E4, chess.D4], weight=8.0),
                       rng(20), min_plies=12, max_plies=60)
    games.append(G("King of the Hill", "Rated King of the Hill game", "0-1",
                   board=start, moves=mv))

    # 21. Atomic with a drop: illegal.
    start, mv = search(V.AtomicBoard, lambda x: len(x.move_stack) >= 10 and not x.is_game_over(),
                       generic_bias(capture=0.5), rng(21), min_plies=10, max_plies=11)
    tokens = movetext_tokens(start, mv)
    tokens += ["6.", "N@e5", "Nf6", "7.", "Qe2", "1-0"]
    games.append(G("Atomic", "Rated Atomic game", "1-0", board=start,
                   movetext=wrap(tokens)))

    # 22. Atomic with a king capture (legal only in standard chess).
    def has_king_capture(x):
        if x.is_game_over():
            return False
        std = chess.Board(x.fen())
        return any(std.piece_type_at(m.from_square) == chess.KING and std.is_capture(m)
                   and not x.is_legal(m) for m in std.legal_moves)

    start, mv = search(V.AtomicBoard, has_king_capture,
                       king_bias(chess.WHITE, [chess.E4, chess.D4], weight=6.0,
                                 base=generic_bias(capture=0.7, check=1.0)),
                       rng(22), min_plies=10, max_plies=50, tries=2000)
    end = outcome_of(start, mv)
    std = chess.Board(end.fen())
    kcap = next(m for m in std.legal_moves
                if std.piece_type_at(m.from_square) == chess.KING and std.is_capture(m)
                and not end.is_legal(m))
    tokens = movetext_tokens(start, mv)
    if std.turn == chess.WHITE:
        tokens.append(f"{std.fullmove_number}.")
    tokens.append(std.san(kcap))
    std.push(kcap)
    reply = next(iter(std.legal_moves))
    tokens.append(std.san(reply))
    tokens.append("1-0" if end.turn == chess.WHITE else "0-1")
    games.append(G("Atomic", "Rated Atomic game", tokens[-1], board=start,
                   movetext=wrap(tokens)))

    # 23. Antichess ignoring a compulsory capture.
    def capture_available(x):
        if len(x.move_stack) < 12 or x.is_game_over() or not any(x.generate_pseudo_legal_captures()):
            return False
        std = chess.Board(x.fen())
        return any(not std.is_capture(m) and std.piece_type_at(m.from_square) != chess.KING
                   for m in std.legal_moves)

    start, mv = search(V.AntichessBoard, capture_available,
                       generic_bias(), rng(23), min_plies=12, max_plies=40)
    end = outcome_of(start, mv)
    std = chess.Board(end.fen())
    quiet = next(m for m in std.legal_moves if not std.is_capture(m)
                 and std.piece_type_at(m.from_square) != chess.KING)
    assert not end.is_legal(quiet)
    tokens = movetext_tokens(start, mv)
    if std.turn == chess.WHITE:
        tokens.append(f"{std.fullmove_number}.")
    tokens.append(std.san(quiet))
    tokens.append("0-1" if end.turn == chess.WHITE else "1-0")
    games.append(G("Antichess", "Rated Antichess game", tokens[-1], board=start,
                   movetext=wrap(tokens)))

    # 24. Shogi: unsupported variant.
    games.append(G("Shogi", "Rated Shogi game", "1-0",
                   movetext=wrap("1. P-7f P-3d 2. P-2f P-4d 3. S-4h R-4b 4. K-6h K-6b "
                                 "5. K-7h K-7b 6. P-5f S-3b 7. G4i-5h G6a-5b 1-0".split()),
                   board=None))
    return games


# ---------------------------------------------------------------- writing ----

def site_id(rng):
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(8))


def render(games):
    meta = random.Random(SEED)
    out = []
    for i, g in enumerate(games):
        day = 1 + i * 9 // len(games)
        secs = 3600 + i * 1337 + meta.randrange(600)
        utctime = f"{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}"
        white, black = meta.sample(NAMES, 2)
        welo, belo = meta.randrange(1300, 2300), meta.randrange(1300, 2300)
        diff = meta.randrange(3, 12)
        if g.result == "1-0":
            wd, bd = diff, -diff
        elif g.result == "0-1":
            wd, bd = -diff, diff
        else:
            wd = meta.choice([-1, 0, 1]) if welo > belo else meta.choice([0, 1, 2])
            bd = -wd
        headers = [
            ("Event", g.event),
            ("Site", "https://lichess.org/" + site_id(meta)),
            ("Date", f"2025.05.0{day}"),
            ("Round", "-"),
            ("White", white),
            ("Black", black),
            ("Result", g.result),
            ("UTCDate", f"2025.05.0{day}"),
            ("UTCTime", utctime),
            ("WhiteElo", str(welo)),
            ("BlackElo", str(belo)),
            ("WhiteRatingDiff", f"{wd:+d}"),
            ("BlackRatingDiff", f"{bd:+d}"),
            ("Variant", g.variant),
            ("TimeControl", g.time_control),
            ("ECO", "?"),
            ("Termination", g.termination),
        ]
        if g.fen_tag:
            headers += [("FEN", getattr(g, "fen_override", None) or g.board.fen()),
                        ("SetUp", "1")]
        for k, v in headers:
            out.append(f'[{k} "{v}"]')
        out.append("")
        if g.movetext is not None:
            out.append(g.movetext)
        else:
            out.append(wrap(movetext_tokens(g.board, g.moves) + [g.result]))
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------- checking ---

def table(path):
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    rows = []
    with open(path, encoding="utf-8") as fh:
        i = 0
        while True:
            game = chess.pgn.read_game(fh)
            if game is None:
                break
            variant = game.headers.get("Variant")
            try:
                cls = game.headers.variant().__name__
            except ValueError:
                cls = "Board(fallback)"
            # Replay the mainline ourselves (game.end().board() raises for Shogi).
            try:
                board = game.board()
            except ValueError:
                board = chess.Board()
            plies = 0
            for move in game.mainline_moves():
                board.push(move)
                plies += 1
            oc = board.outcome()
            errs = "; ".join(f"{type(e).__name__}: {e}" for e in game.errors)
            rows.append([
                str(i), variant, cls, str(plies), game.headers.get("Result"),
                *("T" if f() else "F" for f in (
                    board.is_variant_end, board.is_variant_win, board.is_variant_loss,
                    board.is_variant_draw, board.is_checkmate, board.is_stalemate,
                    board.is_insufficient_material)),
                board.fen(),
                f"{oc.termination.name}/{ {True: 'white', False: 'black', None: 'draw'}[oc.winner]}" if oc else "-",
                errs or "-",
            ])
            i += 1
    head = ["#", "Variant", "class", "plies", "Result", "vEnd", "vWin", "vLoss",
            "vDraw", "mate", "stalem", "insuf", "final FEN", "outcome", "errors"]
    return head, rows


def main():
    games = build_games()
    text = render(games)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({len(games)} games)")
    if "--no-table" in sys.argv:
        return
    head, rows = table(OUT)
    print(" | ".join(head))
    for r in rows:
        print(" | ".join(r))


if __name__ == "__main__":
    main()

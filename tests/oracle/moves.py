"""python-chess's view of every move of a PGN file, against pgnlake's moves table.

Usage: moves.py GAMES.pgn IMPORT_DIR   (IMPORT_DIR: `pgnlake import --moves`)
For every game pgnlake accepted (matched by its index in the file), replays
the mainline with python-chess and compares each ply's row: `uci`, `san`,
`is_check`, `position_key` (python-chess's Polyglot `zobrist_hash` of the
position before the move), `clock_ms` (`node.clock()`), `eval_cp` /
`eval_mate` (`node.eval()`, White's point of view) and `eval_depth`
(`node.eval_depth()`); and each game's `has_clocks`, `has_evals` and final
clocks. Prints one `mismatch ...` line per disagreement (at most 50), then
  checked games=G plies=P clocks=C evals=E ep_pseudo_legal=D
where D counts positions whose keys differ only because python-chess hashes
an en-passant square no legal capture can use (pgnlake's key does not: the
documented difference).
"""

import sys

import chess
import chess.pgn
import chess.polyglot
import pyarrow.parquet as pq

MASK = (1 << 64) - 1


def main():
    pgn_path, out = sys.argv[1], sys.argv[2]
    games = pq.read_table(
        f"{out}/games.parquet",
        columns=[
            "game_id",
            "game_index",
            "has_clocks",
            "has_evals",
            "clock_white_final_ms",
            "clock_black_final_ms",
        ],
    ).to_pylist()
    moves = {}
    for row in pq.read_table(f"{out}/moves.parquet").to_pylist():
        moves.setdefault(row["game_id"], []).append(row)
    accepted = {g["game_index"]: g for g in games}
    mismatches = []
    counts = dict(games=0, plies=0, clocks=0, evals=0, ep=0)

    def differ(what):
        mismatches.append(what)

    with open(pgn_path, encoding="utf-8", errors="replace") as f:
        index = 0
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            index += 1
            facts = accepted.get(index)
            if facts is None:
                continue
            counts["games"] += 1
            rows = moves.get(facts["game_id"], [])
            board = game.board()
            final = {chess.WHITE: None, chess.BLACK: None}
            has_clocks = has_evals = False
            nodes = list(game.mainline())
            if len(nodes) != len(rows):
                differ(f"game {index}: {len(nodes)} plies, moves table {len(rows)}")
                continue
            for ply, (node, row) in enumerate(zip(nodes, rows), start=1):
                where = f"game {index} ply {ply}"
                move = node.move
                key = chess.polyglot.zobrist_hash(board)
                if row["ply"] != ply:
                    differ(f"{where}: ply column {row['ply']}")
                if (row["position_key"] & MASK) != key:
                    pseudo_only = board.has_pseudo_legal_en_passant() and not board.has_legal_en_passant()
                    if pseudo_only:
                        counts["ep"] += 1
                    else:
                        differ(f"{where}: position_key {row['position_key'] & MASK:x} vs {key:x}")
                if row["uci"] != board.uci(move, chess960=board.chess960):
                    differ(f"{where}: uci {row['uci']} vs {move.uci()}")
                san = board.san(move)
                if row["san"] != san:
                    differ(f"{where}: san {row['san']} vs {san}")
                mover = board.turn
                board.push(move)
                if row["is_check"] != board.is_check():
                    differ(f"{where}: is_check {row['is_check']}")
                clock = node.clock()
                expected_clock = None if clock is None else round(clock * 1000)
                if row["clock_ms"] != expected_clock:
                    differ(f"{where}: clock_ms {row['clock_ms']} vs {expected_clock}")
                if expected_clock is not None:
                    counts["clocks"] += 1
                    has_clocks = True
                    final[mover] = expected_clock
                score = node.eval()
                cp = mate = None
                if score is not None:
                    white = score.white()
                    cp, mate = white.score(), white.mate()
                    counts["evals"] += 1
                    has_evals = True
                if (row["eval_cp"], row["eval_mate"]) != (cp, mate):
                    differ(f"{where}: eval {row['eval_cp']}/{row['eval_mate']} vs {cp}/{mate}")
                if row["eval_depth"] != node.eval_depth():
                    differ(f"{where}: eval_depth {row['eval_depth']} vs {node.eval_depth()}")
                counts["plies"] += 1
            expected = (has_clocks, has_evals, final[chess.WHITE], final[chess.BLACK])
            got = (
                facts["has_clocks"],
                facts["has_evals"],
                facts["clock_white_final_ms"],
                facts["clock_black_final_ms"],
            )
            if got != expected:
                differ(f"game {index}: game clocks {got} vs {expected}")
    for line in mismatches[:50]:
        print("mismatch", line)
    print(
        "checked games={games} plies={plies} clocks={clocks} evals={evals} ep_pseudo_legal={ep}".format(
            **counts
        )
    )


main()

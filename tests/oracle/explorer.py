"""Independent oracle for `pgnlake serve`: the lichess opening explorer API.

Usage: explorer.py DATA_DIR BASE_URL

DATA_DIR is what the server was started with (`--data`, and `--masters`
left at its default): an import's folder (DATA_DIR/games.parquet) or a lake
(DATA_DIR/games/import=NAME/*.parquet). BASE_URL is the server's address,
e.g. http://127.0.0.1:9002/.

Reads the games with pyarrow, replays each game's first moves (the start of
`moves_uci`, within the tree's window) once with
python-chess, and computes for a list of queries what /lichess, /masters
and /player must answer. Asks the server through berserk (the published
lichess client: `Client(explorer_url=...).opening_explorer`), plus a few
raw urllib requests (errors, headers, `modes`), compares, prints one line
per answer checked and, on any mismatch, a diff; exits 1 if any answer was
wrong. Ends with `checked N answers`.

The rules are pgnlake's tree rules, written here independently:
- a game's first moves are the first `opening_tree.plies` (the summary's
  window) of `moves_uci`, for a game of standard chess from the standard
  start (no `start_fen`), none for the others;
- a game counts for a position when replaying its first moves from the
  standard start reaches it (positions compared by python-chess's
  transposition key: pieces, side to move, castling rights, en passant
  square only when a capture is legal); the move counted is the one that
  left the position the LAST time within its first moves (once per game);
  the position after the last of its first moves counts nowhere;
- the counted result is `declared_result` when `result_check` is
  `consistent`, else `result_by_rule`; a game whose counted result is none of
  1-0, 0-1, 1/2-1/2 is counted in no column but is still a game of its move
  (the server may list a move of such games only, with zeros);
- /lichess filters: speeds (time_class), ratings (lichess's groups of the
  rounded-down average of both ratings; games without both ratings are out
  when `ratings` is given), since/until months (games without a month are
  out when either is given); /masters: since/until years; /player: the name
  (case-insensitive) on the queried colour, speeds, modes (event `Rated ...`
  / `Casual ...`), since/until months;
- moves sorted by games with a result (white + draws + black, lila's total), ties in any
  order; `averageRating` the rounded (half up) average rating of the side to
  move over the move's games that have it; /player's
  `averageOpponentRating` the opponent's (of the queried colour); totals the
  sums over all moves; `moves[].game` exactly when the move has one game;
  top and recent games must be games of the position and the move they
  name, passing the filters, with fields as games.parquet has them (a null
  name may be written "?"), within lila's caps (/lichess 4 top and 8 in all,
  /masters 15, /player 8 recent), recent games latest first (greatest game
  id, within each import of a lake), /lichess's top games of rating groups
  2000 and up, /masters' by the sum of both ratings with the best first.

Imports made with `--opening-period year` are asked whole years only, plus
a few months inside a year, for which an exact answer or a refusal (HTTP 400
with an "error") is right; with `--opening-period none` a since/until of
/lichess or /masters may be refused.

`warn` lines (no failure) note where the answer differs from lila's own
behaviour beyond those rules: `performance`, `history`, the latest game
missing from recentGames, topGames with ratings lacking 2500, the missing
/lichess/history alias.
"""

import collections
import datetime
import io
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import berserk
import chess
import chess.pgn
import pyarrow.parquet as pq

COLUMNS = [
    "game_id", "white", "black", "white_elo", "black_elo", "time_class", "month",
    "year", "event", "declared_result", "result_check", "result_by_rule",
    "variant_name", "start_fen", "lichess_id", "moves_uci",
]
SPEED_OF_CLASS = {
    "ultrabullet": "ultraBullet", "bullet": "bullet", "blitz": "blitz",
    "rapid": "rapid", "classical": "classical", "correspondence": "correspondence",
}
GROUPS = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500]
# FIDE's table of rating differences by percentage score (0..100), as lila's
# performance uses it.
FIDE_DP = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336,
    -322, -309, -296, -284, -273, -262, -251, -240, -230, -220, -211, -202, -193,
    -184, -175, -166, -158, -149, -141, -133, -125, -117, -110, -102, -95, -87,
    -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7, 0, 7, 14, 21, 29, 36,
    43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158, 166,
    175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322,
    336, 351, 366, 383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
]
LICHESS_TOP_MAX = 4
LICHESS_GAMES_MAX = 8
MASTERS_TOP_MAX = 15
PLAYER_RECENT_MAX = 8


def pos_key(board):
    return board._transposition_key()


def group_of(rating):
    return max(g for g in GROUPS if g <= max(rating, 0))


def half_up(total, count):
    """round(total / count), halves up, in integers."""
    return (2 * total + count) // (2 * count)


def month_tuple(text):
    year, month = text.split("-")
    return int(year), int(month)


class Game:
    __slots__ = (
        "api_id", "import_name", "game_id", "white", "black", "white_elo",
        "black_elo", "speed", "time_class", "month", "year", "event",
        "declared", "counted", "first_moves", "visits", "mode", "lichess_id", "moves_uci",
    )

    def elo(self, color):
        value = self.white_elo if color == chess.WHITE else self.black_elo
        return value if value is not None and value > 0 else None

    def both_elos(self):
        return self.elo(chess.WHITE) is not None and self.elo(chess.BLACK) is not None


def read_games(data_dir):
    """(games, is_lake): every game of the import or lake."""
    plies = window(data_dir)
    games_dir = os.path.join(data_dir, "games")
    tables = []
    if os.path.isdir(games_dir):
        for part in sorted(os.listdir(games_dir)):
            if not part.startswith("import="):
                continue
            name = part[len("import="):]
            folder = os.path.join(games_dir, part)
            for file in sorted(os.listdir(folder)):
                if file.endswith(".parquet"):
                    tables.append((name, os.path.join(folder, file)))
        is_lake = True
    else:
        tables.append((None, os.path.join(data_dir, "games.parquet")))
        is_lake = False
    games = []
    for name, path in tables:
        for row in pq.read_table(path, columns=COLUMNS).to_pylist():
            g = Game()
            g.import_name = name
            g.game_id = row["game_id"]
            g.api_id = f"{name}:{row['game_id']}" if is_lake else str(row["game_id"])
            # /lichess and /player name a lichess game by its lichess id (a
            # client's link to lichess.org), /masters by pgnlake's.
            g.lichess_id = row["lichess_id"]
            g.white, g.black = row["white"], row["black"]
            g.white_elo, g.black_elo = row["white_elo"], row["black_elo"]
            g.time_class = row["time_class"]
            g.speed = SPEED_OF_CLASS.get(row["time_class"])
            m = row["month"]
            g.month = (m.year, m.month) if isinstance(m, datetime.date) else None
            g.year = row["year"]
            g.event = row["event"]
            event = row["event"] or ""
            g.mode = "rated" if event.startswith("Rated ") else (
                "casual" if event.startswith("Casual ") else None)
            g.declared = row["declared_result"]
            g.counted = (row["declared_result"] if row["result_check"] == "consistent"
                         else row["result_by_rule"])
            in_tree = row["variant_name"] == "standard" and row["start_fen"] is None
            g.first_moves = (" ".join(row["moves_uci"].split()[:plies])
                             if in_tree and plies > 0 else None)
            g.moves_uci = row["moves_uci"]
            g.visits = None
            games.append(g)
    return games, is_lake


def window(data_dir):
    """The tree's window (`opening_tree.plies`), one for every import."""
    folder = os.path.join(data_dir, "_imports")
    if os.path.isdir(folder):
        paths = [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".json")]
    else:
        paths = [os.path.join(data_dir, "summary.json")]
    plies = set()
    for path in paths:
        with open(path) as f:
            plies.add(json.load(f)["opening_tree"]["plies"])
    if len(plies) != 1:
        raise SystemExit(f"oracle: {data_dir}: the imports' windows are {sorted(plies)}")
    return plies.pop()


def opening_periods(data_dir, is_lake):
    """The `--opening-period` of the import, or of each import of the lake."""
    if is_lake:
        folder = os.path.join(data_dir, "_imports")
        paths = [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".json")]
    else:
        paths = [os.path.join(data_dir, "summary.json")]
    periods = set()
    for path in paths:
        try:
            with open(path) as f:
                periods.add(json.load(f)["opening_tree"]["period"])
        except (OSError, ValueError, KeyError, TypeError):
            periods.add("month")
    return periods


def replay(games):
    """Position key -> [(game, move)] over every game's first_moves."""
    index = collections.defaultdict(list)
    for g in games:
        if not g.first_moves:
            continue
        board = chess.Board()
        visits = {}
        for uci in g.first_moves.split():
            move = chess.Move.from_uci(uci)
            if not board.is_legal(move):
                raise SystemExit(f"oracle: game {g.api_id}: first_moves {uci} is illegal "
                                 f"in {board.fen()}")
            visits[pos_key(board)] = move  # the last move that left it wins
            board.push(move)
        g.visits = visits
        for key, move in visits.items():
            index[key].append((g, move))
    return index


# ---------------------------------------------------------------- filters

def lichess_filter(speeds=None, ratings=None, since=None, until=None):
    groups = None if ratings is None else {group_of(int(r)) for r in ratings}
    lo = month_tuple(since) if since else None
    hi = month_tuple(until) if until else None

    def ok(g):
        if speeds is not None and g.speed not in speeds:
            return False
        if groups is not None:
            if not g.both_elos():
                return False
            if group_of((g.white_elo + g.black_elo) // 2) not in groups:
                return False
        if lo or hi:
            if g.month is None:
                return False
            if lo and g.month < lo:
                return False
            if hi and g.month > hi:
                return False
        return True
    return ok


def masters_filter(since=None, until=None):
    def ok(g):
        if since is None and until is None:
            return True
        if g.month is None:
            return False
        if since is not None and g.month < (int(since), 1):
            return False
        if until is not None and g.month > (int(until), 12):
            return False
        return True
    return ok


def player_filter(player, color, speeds=None, modes=None, since=None, until=None):
    base = lichess_filter(speeds=speeds, since=since, until=until)
    wanted = player.lower()

    def ok(g):
        name = g.white if color == "white" else g.black
        if name is None or name.lower() != wanted:
            return False
        if modes is not None and g.mode not in modes:
            return False
        return base(g)
    return ok


# ---------------------------------------------------------------- expected

class MoveStats:
    def __init__(self, uci, san):
        self.uci, self.san = uci, san
        self.games = []
        self.white = self.draws = self.black = 0
        self.rsum = self.rcount = 0

    @property
    def n(self):
        return len(self.games)

    @property
    def decided(self):
        return self.white + self.draws + self.black


def expected_moves(index, board, keep, rating_side):
    """{lichess uci: MoveStats} of the games `keep` passes at `board`.
    rating_side: 'mover' (averageRating: the side to move at `board`), or
    chess.WHITE / chess.BLACK (averageOpponentRating: that colour's rating)."""
    side = board.turn if rating_side == "mover" else rating_side
    stats = {}
    for g, move in index.get(pos_key(board), ()):
        if not keep(g):
            continue
        uci = board.uci(move, chess960=True)  # castling king takes rook, as lichess
        st = stats.get(uci)
        if st is None:
            st = stats[uci] = MoveStats(uci, board.san(move))
        st.games.append(g)
        if g.counted == "1-0":
            st.white += 1
        elif g.counted == "0-1":
            st.black += 1
        elif g.counted == "1/2-1/2":
            st.draws += 1
        elo = g.elo(side)
        if elo is not None:
            st.rsum += elo
            st.rcount += 1
    return stats


def performance(avg_opp, wins, draws, total):
    p = (100 * wins + 50 * draws) / total
    idx = int(p)
    frac = p - idx
    upper = FIDE_DP[idx + 1] if idx < 100 else 800
    return round(avg_opp + FIDE_DP[idx] * (1 - frac) + upper * frac)


# ---------------------------------------------------------------- checking

class Checker:
    def __init__(self, data_dir, base_url):
        self.base = base_url.rstrip("/")
        t0 = time.time()
        self.games, self.is_lake = read_games(data_dir)
        self.by_id = {g.api_id: g for g in self.games}
        self.by_id.update({g.lichess_id: g for g in self.games if g.lichess_id})
        self.index = replay(self.games)
        self.periods = opening_periods(data_dir, self.is_lake)
        self.load_seconds = time.time() - t0
        self.client = berserk.Client(explorer_url=self.base)
        self.explorer = self.client.opening_explorer
        self.checked = 0
        self.failed = 0
        self.warnings = []
        self.pgns_checked = set()

    # -- reporting

    def report(self, label, errors, warnings=()):
        self.checked += 1
        for w in warnings:
            self.warnings.append(f"{label}: {w}")
            print(f"warn {label}: {w}")
        if errors:
            self.failed += 1
            print(f"MISMATCH {label}")
            for e in errors:
                print(f"    {e}")
        else:
            print(f"ok {label}")

    def failure(self, label, exc, may_refuse):
        """A request berserk raised on: a mismatch, unless a refusal (HTTP 400 with
        an error) is an acceptable answer to it."""
        cause = getattr(exc, "cause", None)
        if (may_refuse and getattr(exc, "status_code", None) == 400
                and isinstance(cause, dict) and "error" in cause):
            self.checked += 1
            print(f"ok {label} (refused: {cause['error']})")
            return
        self.report(label, [f"request failed: {type(exc).__name__}: {exc}"])

    # -- game JSON

    def check_game_json(self, gj, where, endpoint, errors, keep=None, moves_of=None):
        """A game as top/recent/moves[].game; keep/moves_of: it must pass the
        query's filter and have played gj['uci'] (when given) at the position."""
        if not isinstance(gj, dict) or "id" not in gj:
            errors.append(f"{where}: not a game: {gj!r}")
            return None
        g = self.by_id.get(gj["id"])
        if g is None:
            errors.append(f"{where}: id {gj['id']!r} is no game of the data")
            return None
        if keep is not None and not keep(g):
            errors.append(f"{where}: game {g.api_id} does not pass the query's filters "
                          f"(speed {g.speed}, elos {g.white_elo}/{g.black_elo}, month {g.month}, "
                          f"white {g.white!r}, black {g.black!r}, mode {g.mode})")
        if moves_of is not None:
            played = moves_of.get(g.api_id)
            if played is None:
                errors.append(f"{where}: game {g.api_id} never reached the position "
                              f"(first_moves {g.first_moves!r})")
            elif "uci" in gj and gj["uci"] != played:
                errors.append(f"{where}: game {g.api_id} played {played} from the position, "
                              f"the answer says {gj['uci']}")
        winner = {"1-0": "white", "0-1": "black"}.get(g.declared)
        if gj.get("winner") != winner:
            errors.append(f"{where}: game {g.api_id} winner {gj.get('winner')!r}, expected "
                          f"{winner!r} (declared_result {g.declared!r})")
        for color, name, elo in (("white", g.white, g.white_elo), ("black", g.black, g.black_elo)):
            side = gj.get(color)
            if not isinstance(side, dict):
                errors.append(f"{where}: game {g.api_id} has no {color} object")
                continue
            if side.get("name") != name and not (name is None and side.get("name") == "?"):
                errors.append(f"{where}: game {g.api_id} {color}.name {side.get('name')!r}, "
                              f"expected {name!r}")
            if side.get("rating") != elo:
                errors.append(f"{where}: game {g.api_id} {color}.rating {side.get('rating')!r}, "
                              f"expected {elo!r}")
        if gj.get("year") != g.year:
            errors.append(f"{where}: game {g.api_id} year {gj.get('year')!r}, expected {g.year!r}")
        month = None if g.month is None else f"{g.month[0]:04}-{g.month[1]:02}"
        if gj.get("month") != month:
            errors.append(f"{where}: game {g.api_id} month {gj.get('month')!r}, expected {month!r}")
        want_id = g.lichess_id if endpoint in ("lichess", "player") and g.lichess_id else g.api_id
        if gj["id"] != want_id:
            errors.append(f"{where}: game {g.api_id} id {gj['id']!r}, expected {want_id!r} "
                          f"(its lichess id on /lichess and /player)")
        if endpoint in ("lichess", "player"):
            if gj.get("speed") != g.speed:
                errors.append(f"{where}: game {g.api_id} speed {gj.get('speed')!r}, expected "
                              f"{g.speed!r} (time_class {g.time_class!r})")
            if gj.get("mode") != g.mode:
                errors.append(f"{where}: game {g.api_id} mode {gj.get('mode')!r}, expected "
                              f"{g.mode!r} (event {g.event!r})")
        return g

    # -- moves list

    def check_moves(self, ans, exp, limit, avg_key, endpoint, errors, warnings,
                    player_color=None):
        got = ans.get("moves")
        if not isinstance(got, list):
            errors.append(f"moves is not a list: {got!r}")
            return
        tw = sum(s.white for s in exp.values())
        td = sum(s.draws for s in exp.values())
        tb = sum(s.black for s in exp.values())
        if (ans.get("white"), ans.get("draws"), ans.get("black")) != (tw, td, tb):
            errors.append(f"totals white/draws/black: got {ans.get('white')}/{ans.get('draws')}/"
                          f"{ans.get('black')}, expected {tw}/{td}/{tb}")
        seen = set()
        last_n = None
        for i, m in enumerate(got):
            uci = m.get("uci")
            where = f"moves[{i}] {uci}"
            if uci in seen:
                errors.append(f"{where}: listed twice")
                continue
            seen.add(uci)
            st = exp.get(uci)
            if st is None:
                errors.append(f"{where}: no game of the filter plays this move here "
                              f"(got {m.get('white')}/{m.get('draws')}/{m.get('black')})")
                continue
            if m.get("san") != st.san:
                errors.append(f"{where}: san {m.get('san')!r}, expected {st.san!r}")
            if (m.get("white"), m.get("draws"), m.get("black")) != (st.white, st.draws, st.black):
                errors.append(f"{where}: white/draws/black {m.get('white')}/{m.get('draws')}/"
                              f"{m.get('black')}, expected {st.white}/{st.draws}/{st.black} "
                              f"(games {sorted(g.api_id for g in st.games)[:20]})")
            avg = half_up(st.rsum, st.rcount) if st.rcount else None
            if m.get(avg_key) != avg:
                errors.append(f"{where}: {avg_key} {m.get(avg_key)!r}, expected {avg!r} "
                              f"({st.rsum}/{st.rcount})")
            if player_color is not None and st.decided:
                wins = st.white if player_color == "white" else st.black
                perf = None if avg is None else performance(avg, wins, st.draws, st.decided)
                if m.get("performance") != perf:
                    warnings.append(f"{where}: performance {m.get('performance')!r}, lila's "
                                    f"formula gives {perf!r}")
            if st.n == 1:
                game = m.get("game")
                if not game:
                    errors.append(f"{where}: one game ({st.games[0].api_id}) but game is "
                                  f"{game!r}")
                else:
                    if self.by_id.get(game.get("id")) is not st.games[0]:
                        errors.append(f"{where}: game.id {game.get('id')!r}, the move's one game "
                                      f"is {st.games[0].api_id!r}")
                    self.check_game_json(game, f"{where}.game", endpoint, errors)
            elif m.get("game") is not None:
                errors.append(f"{where}: {st.n} games but game is set: {m.get('game')!r}")
            # lila's order: by the games with a result (white + draws + black).
            if last_n is not None and st.decided > last_n:
                errors.append(f"{where}: {st.decided} games with a result, after a move of "
                              f"{last_n}: not sorted as lila sorts")
            last_n = st.decided
        if limit is not None and len(got) > limit:
            errors.append(f"{len(got)} moves listed, the limit is {limit}")
        truncated = limit is not None and len(got) >= limit
        if limit == 0:
            return
        floor = min((exp[m.get("uci")].decided for m in got if m.get("uci") in exp), default=0)
        for uci, st in exp.items():
            if uci in seen or st.decided == 0:
                continue
            if not truncated or st.decided > floor:
                errors.append(f"move {uci} ({st.san}) missing: {st.n} games, "
                              f"{st.white}/{st.draws}/{st.black}")

    def check_history(self, got, board, keep, since, until, warnings):
        """lila's history (only warnings: the brief's rules do not cover it): one
        segment per month from `since` (else the first month with a game of the
        position) to the last month with one, counts of the filtered games. An
        archive's last month is kept (lila leaves out its current, unfinished
        month), and the months stay within the archive's."""
        lo = month_tuple(since) if since else None
        hi = month_tuple(until) if until else None
        counts = collections.defaultdict(lambda: [0, 0, 0])
        data = set()
        for g, _ in self.index.get(pos_key(board), ()):
            if g.month is None or (lo and g.month < lo) or (hi and g.month > hi):
                continue
            data.add(g.month)
            if keep(g):
                col = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}.get(g.counted)
                if col is not None:
                    counts[g.month][col] += 1
        expected = []
        if data:
            y, m = lo or min(data)
            while (y, m) <= max(data):
                w, d, b = counts[(y, m)]
                expected.append({"month": f"{y:04}-{m:02}", "white": w, "draws": d, "black": b})
                y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        # Leading and trailing zero segments may differ (lila counts the months of
        # any game of the position, the filter's or not): compare the others, and
        # that the months follow each other.
        def nonzero(segments):
            return [x for x in segments if x["white"] or x["draws"] or x["black"]]
        months = [x.get("month") for x in got or []]
        if not isinstance(got, list) or nonzero(got) != nonzero(expected):
            warnings.append(f"history differs from lila's rules: {nonzero(got or [])} "
                            f"(non-zero segments), expected {nonzero(expected)}")
        elif any(month_tuple(b) != ((month_tuple(a)[0] + 1, 1) if month_tuple(a)[1] == 12 else
                                    (month_tuple(a)[0], month_tuple(a)[1] + 1))
                 for a, b in zip(months, months[1:])):
            warnings.append(f"history months do not follow each other: {months}")

    def api_of(self, gj):
        """pgnlake's id of a game the server listed (by its lichess id or ours)."""
        g = self.by_id.get(gj.get("id"))
        return g.api_id if g is not None else gj.get("id")

    def moves_of(self, board, keep=None):
        """api id -> lichess uci of the move each (kept) game played at board."""
        out = {}
        for g, move in self.index.get(pos_key(board), ()):
            if keep is None or keep(g):
                out[g.api_id] = board.uci(move, chess960=True)
        return out

    def check_recent_order(self, recent, errors, what="recentGames"):
        ids = [r.get("id") for r in recent]
        by_import = collections.defaultdict(list)
        for i in ids:
            g = self.by_id.get(i)
            if g is not None:
                by_import[g.import_name].append(g.game_id)
        for name, seq in by_import.items():
            if any(a <= b for a, b in zip(seq, seq[1:])):
                errors.append(f"{what} not latest first (descending game id"
                              f"{'' if name is None else ' within import ' + name}): {ids}")

    # -- queries

    @staticmethod
    def board_of(play=None, fen=None):
        board = chess.Board(fen) if fen else chess.Board()
        for uci in play or ():
            board.push_uci(uci)
        return board

    @staticmethod
    def label(endpoint, **params):
        parts = []
        for k, v in params.items():
            if v is None:
                continue
            if isinstance(v, (list, tuple)):
                v = ",".join(str(x) for x in v)
            parts.append(f"{k}={v}")
        return f"/{endpoint} " + " ".join(parts) if parts else f"/{endpoint}"

    def lichess(self, play=None, fen=None, speeds=None, ratings=None, since=None, until=None,
                moves=None, top_games=None, recent_games=None, expect_board=None,
                may_refuse=False, history=None):
        label = self.label("lichess", play=play, fen=fen, speeds=speeds, ratings=ratings,
                           since=since, until=until, moves=moves, topGames=top_games,
                           recentGames=recent_games, history=history)
        errors, warnings = [], []
        try:
            ans = self.explorer.get_lichess_games(
                play=play, position=fen, speeds=speeds,
                ratings=None if ratings is None else [str(r) for r in ratings],
                since=since, until=until, moves=moves, top_games=top_games,
                recent_games=recent_games, history=history)
        except Exception as e:  # noqa: BLE001 - any failure is a mismatch
            self.failure(label, e, may_refuse)
            return None
        board = expect_board or self.board_of(play, fen)
        keep = lichess_filter(speeds, ratings, since, until)
        exp = expected_moves(self.index, board, keep, "mover")
        self.check_moves(ans, exp, 12 if moves is None else moves, "averageRating", "lichess",
                         errors, warnings)
        if history and self.periods == {"month"}:  # a tree of years has yearly history
            self.check_history(ans.get("history"), board, keep, since, until, warnings)
        played = self.moves_of(board, keep)
        here = self.moves_of(board)
        top = ans.get("topGames")
        recent = ans.get("recentGames")
        if not isinstance(top, list) or not isinstance(recent, list):
            errors.append(f"topGames/recentGames not lists: {top!r} / {recent!r}")
        else:
            top_cap = LICHESS_TOP_MAX if top_games is None else min(top_games, LICHESS_TOP_MAX)
            if len(top) > top_cap:
                errors.append(f"{len(top)} topGames, at most {top_cap}")
            recent_cap = LICHESS_GAMES_MAX - len(top)
            if recent_games is not None:
                recent_cap = min(recent_cap, recent_games)
            if len(recent) > recent_cap:
                errors.append(f"{len(recent)} recentGames, at most {recent_cap} "
                              f"(8 - {len(top)} top games)")
            for i, gj in enumerate(top):
                g = self.check_game_json(gj, f"topGames[{i}]", "lichess", errors, keep, here)
                if g is not None and not (g.both_elos()
                                          and (g.white_elo + g.black_elo) // 2 >= 2000):
                    errors.append(f"topGames[{i}]: game {g.api_id} is not of a rating group "
                                  f"2000 and up (elos {g.white_elo}/{g.black_elo})")
            for i, gj in enumerate(recent):
                self.check_game_json(gj, f"recentGames[{i}]", "lichess", errors, keep, here)
            ids = [gj.get("id") for gj in top + recent]
            if len(ids) != len(set(ids)):
                errors.append(f"a game listed twice in topGames + recentGames: {ids}")
            self.check_recent_order(recent, errors)
            if ratings is not None and not any(group_of(int(r)) == 2500 for r in ratings) and top:
                warnings.append("topGames listed although ratings has no 2500 group "
                                "(lila then lists none)")
            if played and not top and not recent and (top_games, recent_games) != (0, 0):
                errors.append(f"no top or recent games, but {len(played)} games match")
            if recent and not self.is_lake and (top_games is None or top_games >= 4):
                # lila: recentGames are the latest games not in the top list (of at
                # most 4, cut to topGames after): the latest matching game that is not
                # a top game comes first. Only a warning: the tree keeps the latest
                # game of each (move, speed, band, month) row, not lila's last 8, so
                # an earlier game of a row whose latest is a top game is lost.
                top_ids = {self.api_of(gj) for gj in top}
                rest = [int(i) for i in played if i not in top_ids]
                if rest and self.api_of(recent[0]) != str(max(rest)):
                    warnings.append(f"recentGames[0] is {self.api_of(recent[0])}, the latest "
                                    f"matching game not in topGames is {max(rest)}")
        self.report(label, errors, warnings)
        return ans

    def masters(self, play=None, fen=None, since=None, until=None, moves=None, top_games=None,
                may_refuse=False):
        label = self.label("masters", play=play, fen=fen, since=since, until=until, moves=moves,
                           topGames=top_games)
        errors, warnings = [], []
        try:
            ans = self.explorer.get_masters_games(play=play, position=fen, since=since,
                                                  until=until, moves=moves, top_games=top_games)
        except Exception as e:  # noqa: BLE001
            self.failure(label, e, may_refuse)
            return None
        board = self.board_of(play, fen)
        keep = masters_filter(since, until)
        exp = expected_moves(self.index, board, keep, "mover")
        self.check_moves(ans, exp, 12 if moves is None else moves, "averageRating", "masters",
                         errors, warnings)
        played = self.moves_of(board, keep)
        here = self.moves_of(board)
        if "recentGames" in ans:
            errors.append("/masters answer has a recentGames key")
        top = ans.get("topGames")
        if not isinstance(top, list):
            errors.append(f"topGames not a list: {top!r}")
        else:
            cap = MASTERS_TOP_MAX if top_games is None else min(top_games, MASTERS_TOP_MAX)
            if len(top) > cap:
                errors.append(f"{len(top)} topGames, at most {cap}")
            sums = []
            for i, gj in enumerate(top):
                g = self.check_game_json(gj, f"topGames[{i}]", "masters", errors, keep, here)
                if g is not None:
                    sums.append(g.white_elo + g.black_elo if g.both_elos() else -1)
            ids = [gj.get("id") for gj in top]
            if len(ids) != len(set(ids)):
                errors.append(f"a game listed twice in topGames: {ids}")
            for game_id in ids[:2]:
                self.check_master_pgn(game_id, errors)
            if any(a < b for a, b in zip(sums, sums[1:])):
                errors.append(f"topGames not by the sum of both ratings, descending: "
                              f"{list(zip(ids, sums))}")
            best = max((g.white_elo + g.black_elo for g in map(self.by_id.get, played)
                        if g.both_elos()), default=None)
            if best is not None and cap > 0 and (not sums or sums[0] != best):
                errors.append(f"topGames[0] has rating sum {sums[0] if sums else None}, the "
                              f"best-rated matching game has {best}")
            if played and not top and cap > 0:
                if best is not None:
                    errors.append(f"no top games, but {len(played)} games match")
                else:
                    warnings.append(f"no top games: the {len(played)} matching games have "
                                    f"no ratings")
        self.report(label, errors, warnings)
        return ans

    def check_master_pgn(self, game_id, errors, most=12):
        """A top game's PGN through berserk's `get_otb_master_game`, read by
        python-chess: the game's players and moves (up to `most` games)."""
        if game_id in self.pgns_checked or len(self.pgns_checked) >= most:
            return
        self.pgns_checked.add(game_id)
        g = self.by_id.get(game_id)
        try:
            pgn = self.explorer.get_otb_master_game(game_id)
        except Exception as e:  # noqa: BLE001
            errors.append(f"get_otb_master_game({game_id!r}): {e}")
            return
        game = chess.pgn.read_game(io.StringIO(pgn))
        if game is None or game.errors or g is None:
            errors.append(f"get_otb_master_game({game_id!r}): {game and game.errors} {pgn[:200]!r}")
            return
        moves = " ".join(m.uci() for m in game.mainline_moves())
        tags = (game.headers.get("White"), game.headers.get("Black"))
        if moves != g.moves_uci or tags != (g.white or "?", g.black or "?"):
            errors.append(f"get_otb_master_game({game_id!r}): {tags} {moves[:60]!r}, the games "
                          f"table has {(g.white, g.black)} {g.moves_uci[:60]!r}")

    def check_player_answer(self, label, ans, player, color, play, fen, speeds, modes,
                            since, until, moves, recent_games, lines=None):
        errors, warnings = [], []
        board = self.board_of(play, fen)
        keep = player_filter(player, color, speeds, modes, since, until)
        opponent = chess.BLACK if color == "white" else chess.WHITE
        exp = expected_moves(self.index, board, keep, opponent)
        self.check_moves(ans, exp, moves, "averageOpponentRating", "player", errors, warnings,
                         player_color=color)
        played = self.moves_of(board, keep)
        here = self.moves_of(board)
        recent = ans.get("recentGames")
        if not isinstance(recent, list):
            errors.append(f"recentGames not a list: {recent!r}")
        else:
            cap = PLAYER_RECENT_MAX if recent_games is None else min(recent_games,
                                                                     PLAYER_RECENT_MAX)
            if len(recent) > cap:
                errors.append(f"{len(recent)} recentGames, at most {cap}")
            for i, gj in enumerate(recent):
                self.check_game_json(gj, f"recentGames[{i}]", "player", errors, keep, here)
            ids = [gj.get("id") for gj in recent]
            if len(ids) != len(set(ids)):
                errors.append(f"a game listed twice in recentGames: {ids}")
            self.check_recent_order(recent, errors)
            if played and not recent and cap > 0:
                errors.append(f"no recent games, but {len(played)} games match")
            if recent and not self.is_lake:
                latest = max(int(i) for i in played)
                if self.api_of(recent[0]) != str(latest):
                    warnings.append(f"recentGames[0] is {self.api_of(recent[0])}, the latest "
                                    f"matching game is {latest}")
        if "topGames" in ans and ans["topGames"]:
            errors.append(f"/player answer lists topGames: {ans['topGames']!r}")
        if lines is not None:
            totals = [l.get("white", 0) + l.get("draws", 0) + l.get("black", 0) for l in lines]
            if any(a > b for a, b in zip(totals, totals[1:])):
                warnings.append(f"stream totals go down: {totals}")
        self.report(label, errors, warnings)

    def player(self, player, color, play=None, fen=None, speeds=None, since=None, until=None,
               moves=None, recent_games=None, stream=False):
        label = self.label("player", player=player, color=color, play=play, fen=fen,
                           speeds=speeds, since=since, until=until, moves=moves,
                           recentGames=recent_games) + (" (stream)" if stream else "")
        kwargs = dict(play=play, position=fen, speeds=speeds, since=since, until=until,
                      moves=moves, recent_games=recent_games)
        lines = None
        try:
            if stream:
                lines = list(self.explorer.stream_player_games(player, color, **kwargs))
                if not lines:
                    self.report(label, ["empty stream"])
                    return
                ans = lines[-1]
            else:
                ans = self.explorer.get_player_games(player, color, **kwargs)
        except Exception as e:  # noqa: BLE001
            self.report(label, [f"request failed: {type(e).__name__}: {e}"])
            return
        self.check_player_answer(label, ans, player, color, play, fen, speeds, None, since,
                                 until, moves, recent_games, lines)

    def player_raw(self, params):
        """/player by urllib (berserk sends no `modes`): the last NDJSON line."""
        label = self.label("player", **params) + " (urllib)"
        try:
            status, body, _ = self.get("/player", params)
        except Exception as e:  # noqa: BLE001
            self.report(label, [f"request failed: {type(e).__name__}: {e}"])
            return
        lines = [json.loads(l) for l in body.decode().splitlines() if l.strip()]
        if status != 200 or not lines:
            self.report(label, [f"HTTP {status}, body {body[:300]!r}"])
            return
        split = lambda k: params[k].split(",") if k in params else None  # noqa: E731
        play = split("play")
        self.check_player_answer(label, lines[-1], params["player"], params["color"], play, None,
                                 split("speeds"), split("modes"), params.get("since"),
                                 params.get("until"), None, None, lines)

    # -- raw HTTP

    def get(self, path, params, headers=None):
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        req = urllib.request.Request(url, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def expect_error(self, path, params):
        label = f"{path} " + " ".join(f"{k}={v}" for k, v in params.items()) + " -> 400"
        errors = []
        status, body, _ = self.get(path, params)
        if status != 400:
            errors.append(f"HTTP {status}, expected 400; body {body[:300]!r}")
        try:
            doc = json.loads(body)
            if not isinstance(doc, dict) or "error" not in doc:
                errors.append(f"body has no \"error\" key: {body[:300]!r}")
        except ValueError:
            errors.append(f"body is not JSON: {body[:300]!r}")
        self.report(label, errors)

    def expect_same(self, label, path, params, headers, reference_params):
        errors = []
        status, body, _ = self.get(path, params, headers)
        status2, body2, _ = self.get(path, reference_params)
        if status != 200:
            errors.append(f"HTTP {status}, expected 200; body {body[:300]!r}")
        elif json.loads(body) != json.loads(body2):
            errors.append(f"answer differs from the one without: {body[:300]!r} vs {body2[:300]!r}")
        self.report(label, errors)


# ---------------------------------------------------------------- query plan

def common_prefixes(games, plies, count):
    c = collections.Counter()
    for g in games:
        if g.first_moves:
            moves = g.first_moves.split()
            if len(moves) > plies:  # a move is played from the position
                c[tuple(moves[:plies])] += 1
    return [list(p) for p, _ in c.most_common(count)]


def castling_line(games):
    """The most common line of first_moves up to a castling move (exclusive)."""
    c = collections.Counter()
    for g in games:
        if not g.first_moves:
            continue
        board = chess.Board()
        moves = g.first_moves.split()
        for i, uci in enumerate(moves):
            move = chess.Move.from_uci(uci)
            if board.is_castling(move):
                c[tuple(moves[:i])] += 1
                break
            board.push(move)
    return [list(p) for p, _ in c.most_common(1)]


def months_of(games):
    return sorted({g.month for g in games if g.first_moves and g.month})


def fmt_month(m):
    return f"{m[0]:04}-{m[1]:02}"


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    data_dir, base_url = sys.argv[1], sys.argv[2]
    t0 = time.time()
    ck = Checker(data_dir, base_url)
    in_tree = [g for g in ck.games if g.first_moves]
    print(f"# {len(ck.games)} games ({len(in_tree)} in the tree) from "
          f"{'lake' if ck.is_lake else 'folder'} {data_dir}, {len(ck.index)} positions, "
          f"read and replayed in {ck.load_seconds:.1f}s")

    lines = [[], ["e2e4"], ["e2e4", "c7c5"], ["d2d4"], ["g1f3"]]
    for extra in (common_prefixes(ck.games, 4, 2) + common_prefixes(ck.games, 6, 1)
                  + common_prefixes(ck.games, 8, 1) + castling_line(ck.games)):
        if extra not in lines:
            lines.append(extra)
    months = months_of(ck.games)
    since = fmt_month(months[len(months) // 4]) if months else "2020-01"
    until = fmt_month(months[(3 * len(months)) // 4]) if months else "2020-12"
    # The tree's months: with --opening-period year they are January 1st, so only
    # whole years are asked (a month inside a year is asked once, below, where an
    # exact answer or a refusal is right); with `none` there are none, and a
    # since/until of /lichess or /masters may be refused (HTTP 400 with an error).
    by_year = "year" in ck.periods
    refuse = "none" in ck.periods
    if by_year:
        since, until = since[:4] + "-01", until[:4] + "-12"
    print(f"# opening periods {sorted(ck.periods)}; since {since}, until {until}")
    speed_count = collections.Counter(g.speed for g in in_tree if g.speed)
    main_speed = speed_count.most_common(1)[0][0] if speed_count else "blitz"

    # /lichess
    for play in lines:
        play = play or None
        ck.lichess(play=play)
        ck.lichess(play=play, speeds=["blitz"])
        if main_speed != "blitz":
            ck.lichess(play=play, speeds=[main_speed])
        ck.lichess(play=play, ratings=[1600, 1800])
        ck.lichess(play=play, since=since, until=until, may_refuse=refuse)
        ck.lichess(play=play, since=since, may_refuse=refuse)
        ck.lichess(play=play, speeds=["blitz", "rapid", "classical"],
                   ratings=[1500, 2000, 2200, 2500])
        ck.lichess(play=play, ratings=[2500])
    ck.lichess(moves=2, top_games=1, recent_games=2)
    ck.lichess(play=["e2e4"], moves=1, top_games=0, recent_games=3)
    ck.lichess(since="3000-01", may_refuse=refuse)
    ck.lichess(moves=0)
    ck.lichess(play=["e2e4"], history=True, moves=0, top_games=0, recent_games=0)
    ck.lichess(play=["e2e4"], history=True, speeds=["blitz"])
    if not refuse:
        ck.lichess(history=True, since=since, until=until)
    # fen and play together: play is applied from the fen
    ck.lichess(fen=chess.STARTING_FEN, play=["e2e4", "e7e5"])
    if by_year and months:
        # inside a year: exact (from the games' months) or refused; never the
        # tree's January months taken for the games'
        mid = months[len(months) // 2]
        ck.lichess(since=f"{mid[0]:04}-{min(mid[1], 11) + 1:02}", may_refuse=True)
        ck.lichess(until=f"{mid[0]:04}-{max(mid[1], 2) - 1:02}", may_refuse=True)
        ck.lichess(play=["e2e4"], since=f"{mid[0]:04}-03", until=f"{mid[0]:04}-10",
                   may_refuse=True)
    # the FEN form: the position after 1.e4, without and with the e3 square
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    fen = after_e4.fen()
    a = ck.lichess(fen=fen)
    b = ck.lichess(fen=fen.replace(" - ", " e3 "), expect_board=after_e4)
    ck.lichess(fen=fen, speeds=["blitz"], ratings=[1600, 1800, 2000])
    c = ck.lichess(play=["e2e4"])
    ck.report("/lichess fen=(after e2e4) answers as play=e2e4",
              [] if a == c and b == c else ["the FEN answers differ from play=e2e4's"])
    # castling written king takes rook in `play` (as lichess's board sends it)
    castle = castling_line(ck.games)
    if castle:
        board = chess.Board()
        for uci in castle[0]:
            board.push_uci(uci)
        for move in board.legal_moves:
            if board.is_castling(move):
                rook_style = castle[0] + [board.uci(move, chess960=True)]
                king_style = castle[0] + [move.uci()]
                x = ck.lichess(play=rook_style)
                y = ck.lichess(play=king_style)
                ck.report(f"/lichess play={','.join(rook_style)} answers as {king_style[-1]}",
                          [] if x == y else ["castling king-takes-rook in play answers "
                                             "differently from king-two-squares"])
                break

    # /masters
    years = sorted({m[0] for m in months})
    ysince = years[len(years) // 4] if years else 2000
    yuntil = years[(3 * len(years)) // 4] if years else 2020
    for play in lines:
        play = play or None
        ck.masters(play=play)
        ck.masters(play=play, since=ysince, until=yuntil, may_refuse=refuse)
        ck.masters(play=play, since=ysince, may_refuse=refuse)
    ck.masters(moves=3, top_games=2)
    ck.masters(fen=fen)

    # /player
    whites = collections.Counter(g.white for g in in_tree if g.white)
    blacks = collections.Counter(g.black for g in in_tree if g.black)
    people = ([(n, "white") for n, _ in whites.most_common(3)]
              + [(n, "black") for n, _ in blacks.most_common(3)])
    for name, color in people:
        mine = [g for g in in_tree if (g.white if color == "white" else g.black) == name]
        first = collections.Counter(g.first_moves.split()[0] for g in mine)
        ck.player(name, color)
        ck.player(name, color, stream=True)
        ck.player(name, color, play=[first.most_common(1)[0][0]])
        spd = collections.Counter(g.speed for g in mine if g.speed)
        if spd:
            ck.player(name, color, speeds=[spd.most_common(1)[0][0]])
        ck.player(name, color, since=since, until=until)
        ck.player(name, color, recent_games=2, moves=1)
    if people:
        name, color = people[0]
        other = name.swapcase() if name.swapcase() != name else name.upper()
        ck.player(other, color)
        ck.player_raw({"player": name, "color": color, "modes": "rated"})
        ck.player_raw({"player": name, "color": color, "modes": "casual"})
        ck.player_raw({"player": name, "color": color, "modes": "rated,casual"})
    rated = collections.Counter(g.white for g in in_tree if g.white and g.mode == "rated")
    if rated:
        n = rated.most_common(1)[0][0]
        ck.player_raw({"player": n, "color": "white", "modes": "rated"})
        ck.player_raw({"player": n, "color": "white", "modes": "casual"})
    ck.player("nobody-plays-here-xyz", "white")

    # errors and headers
    ck.expect_error("/lichess", {"play": "e2e5"})
    ck.expect_error("/lichess", {"fen": "garbage"})
    ck.expect_error("/lichess", {"ratings": "abc"})
    ck.expect_error("/lichess", {"speeds": "fast"})
    ck.expect_error("/lichess", {"since": "2020"})
    ck.expect_error("/masters", {"play": "e2e5"})
    ck.expect_error("/player", {"player": people[0][0] if people else "x"})
    ck.expect_error("/player", {"player": "x", "color": "white", "play": "e2e5"})
    ck.expect_same("/lichess play=e2e4 with Authorization: Bearer x", "/lichess",
                   {"play": "e2e4"}, {"Authorization": "Bearer x"}, {"play": "e2e4"})
    ck.expect_same("/lichess play=e2e4 with unknown params", "/lichess",
                   {"play": "e2e4", "source": "analysis", "foo": "bar", "variant": "standard"},
                   None, {"play": "e2e4"})
    ck.expect_same("/masters with Authorization: Bearer x", "/masters", {},
                   {"Authorization": "Bearer x"}, {})
    # lila's legacy alias /lichess/history (history only): a warning when missing
    status, body, _ = ck.get("/lichess/history", {"play": "e2e4"})
    if status != 200:
        ck.warnings.append(f"/lichess/history: HTTP {status} (lila serves it as /lichess "
                           f"with history=true, moves=0, no games)")
        print(f"warn /lichess/history play=e2e4: HTTP {status} {body[:100]!r}")

    print(f"# {len(ck.warnings)} warnings; {time.time() - t0:.1f}s")
    print(f"checked {ck.checked} answers, {len(ck.pgns_checked)} masters PGNs through "
          f"get_otb_master_game" + (f", {ck.failed} WRONG" if ck.failed else ""))
    sys.exit(1 if ck.failed else 0)


if __name__ == "__main__":
    main()

"""Load for `pgnlake serve` (benches/serve.sh): CLIENTS threads, each with
one keep-alive connection, request random positions of the first PLIES
plies with random filters for SECONDS seconds (or REQUESTS requests in
all), and print the latencies.

Usage: serve_load.py BASE_URL LINES_FILE [--clients 8] [--seconds 30]
       [--requests N] [--plies 8] [--seed 1]

LINES_FILE holds one game's first moves a line (UCI, space-separated, as
`games.moves_uci`); a request plays a random prefix of 0..PLIES of a
random line, so positions are those the archive reached, most often the
popular ones, as an explorer's users ask. Filters, each drawn at random:
speeds (none, one or two), ratings (none, or a run of lichess's groups),
since/until (none, or a range of months of 2025), topGames/recentGames.
Prints one JSON object: requests, errors, seconds, rps, p50/p90/p99/max in
ms, and the statuses seen.
"""

import argparse
import http.client
import json
import random
import threading
import time
import urllib.parse

# `--no-games` (for profiling): no top or recent games asked.
NO_GAMES = False
SPEEDS = ["bullet", "blitz", "rapid", "classical"]
GROUPS = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500]


def query(rng, lines, plies):
    line = rng.choice(lines)
    n = rng.randint(0, min(plies, len(line)))
    params = {}
    if n:
        params["play"] = ",".join(line[:n])
    if rng.random() < 0.5:
        params["speeds"] = ",".join(rng.sample(SPEEDS, rng.randint(1, 2)))
    if rng.random() < 0.5:
        first = rng.randrange(len(GROUPS))
        params["ratings"] = ",".join(str(g) for g in GROUPS[first:first + rng.randint(1, 4)])
    if rng.random() < 0.3:
        since = rng.randint(1, 6)
        params["since"] = f"2025-{since:02d}"
        params["until"] = f"2025-{rng.randint(since, 12):02d}"
    params["topGames"] = str(rng.choice([0, 4]))
    params["recentGames"] = str(rng.choice([0, 4]))
    if NO_GAMES:
        params["topGames"] = params["recentGames"] = "0"
    return "/lichess?" + urllib.parse.urlencode(params)


def client(base, lines, args, seed, deadline, budget, out, statuses, lock):
    rng = random.Random(seed)
    url = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    latencies = []
    while time.monotonic() < deadline:
        with lock:
            if budget[0] <= 0:
                break
            budget[0] -= 1
        path = query(rng, lines, args.plies)
        start = time.perf_counter()
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
            status, body = "error", b""
        latencies.append(time.perf_counter() - start)
        with lock:
            statuses[status] = statuses.get(status, 0) + 1
            if status != 200 and statuses[status] <= 3:
                print("non-200:", status, path, body[:200], flush=True)
    conn.close()
    out.extend(latencies)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("lines")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--requests", type=int, default=10**12)
    parser.add_argument("--plies", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-games", action="store_true")
    args = parser.parse_args()
    global NO_GAMES
    NO_GAMES = args.no_games
    with open(args.lines) as f:
        lines = [l.split() for l in f if l.strip()]
    latencies, statuses, lock = [], {}, threading.Lock()
    budget = [args.requests]
    begin = time.monotonic()
    deadline = begin + args.seconds
    threads = [
        threading.Thread(target=client, args=(args.base, lines, args, args.seed * 1000 + i,
                                              deadline, budget, latencies, statuses, lock))
        for i in range(args.clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - begin
    latencies.sort()

    def pct(p):
        return round(1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))], 2) if latencies else None

    print(json.dumps({
        "requests": len(latencies),
        "errors": sum(n for s, n in statuses.items() if s != 200),
        "seconds": round(elapsed, 2),
        "rps": round(len(latencies) / elapsed, 1),
        "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
        "max_ms": round(1000 * latencies[-1], 2) if latencies else None,
        "statuses": {str(k): v for k, v in statuses.items()},
    }))


if __name__ == "__main__":
    main()

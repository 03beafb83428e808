"""`/lichess` latency while 60 `/player` streams run (issue 64).

    python3 benches/serve_fairness.py PGNLAKE DATA [SERVE OPTIONS] < NAMES

NAMES: up to 60 player names, one per line, each streamed as white over
and over (e.g. the 60 most frequent of `pgnlake query -e "SELECT white,
count(*) n FROM games GROUP BY white ORDER BY n DESC LIMIT 60" --data DATA
--format csv`, on benches/serve.sh's players import). For 15 s, one client
asks /lichess for five positions in turn: p50, p90 and max latency.
Standard library only.
"""
import re
import statistics
import subprocess
import sys
import threading
import time
import urllib.request

PLAYS = ["e2e4", "d2d4", "e2e4,c7c5", "e2e4,e7e5,g1f3", "d2d4,g8f6,c2c4"]


def main():
    binary, data, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    server = subprocess.Popen(
        [binary, "serve", "--data", data, "--listen", "127.0.0.1:0"] + extra,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    address = re.search(r"http://([\d.:]+)/", server.stdout.readline()).group(1)
    stop = threading.Event()

    def stream(name):
        while not stop.is_set():
            try:
                url = f"http://{address}/player?player={name}&color=white"
                with urllib.request.urlopen(url, timeout=60) as answer:
                    answer.read()
            except OSError:
                pass

    names = sys.stdin.read().split()[:60]
    for name in names:
        threading.Thread(target=stream, args=(name,), daemon=True).start()
    time.sleep(2)
    latencies = []
    end = time.time() + 15
    while time.time() < end:
        play = PLAYS[len(latencies) % len(PLAYS)]
        start = time.time()
        with urllib.request.urlopen(f"http://{address}/lichess?play={play}&speeds=blitz",
                                    timeout=60) as answer:
            answer.read()
        latencies.append((time.time() - start) * 1000)
    stop.set()
    latencies.sort()
    print(f"/lichess while {len(names)} /player streams: n={len(latencies)} "
          f"p50={statistics.median(latencies):.1f} ms "
          f"p90={latencies[int(0.9 * len(latencies))]:.1f} max={latencies[-1]:.1f} ms")
    server.terminate()
    server.wait()


if __name__ == "__main__":
    main()

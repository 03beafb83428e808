"""`pgnlake serve` against idle half-open connections (issue 64).

    python3 benches/serve_sockets.py PGNLAKE DATA N [--limit FILES]

Starts PGNLAKE serve on DATA (an import's folder; under `prlimit` with
FILES as its open-file limit when --limit is given), then three times:
opens N connections that send half a request head and wait, reports the
server's RSS and whether a new client is answered (and how: 200 or the
cap's 503), closes them, waits 2.5 s, and reports the RSS and a new
client again. Standard library only.
"""
import argparse
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pgnlake")
    ap.add_argument("data")
    ap.add_argument("n", type=int)
    ap.add_argument("--limit", type=int)
    args = ap.parse_args()
    command = [args.pgnlake, "serve", "--data", args.data, "--listen", "127.0.0.1:0",
               "--no-request-log"]
    if args.limit:
        command = ["prlimit", f"--nofile={args.limit}:{args.limit}"] + command
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    address = re.search(r"http://([\d.:]+)/", server.stdout.readline()).group(1)
    host, port = address.split(":")

    def get(path):
        start = time.time()
        try:
            with urllib.request.urlopen(f"http://{address}{path}", timeout=5) as answer:
                status = answer.status
        except urllib.error.HTTPError as e:
            status = e.code
        except OSError as e:
            status = f"failed: {e}"[:40]
        return f"{status} in {1000 * (time.time() - start):.1f} ms"

    for _ in range(50):
        get("/lichess?play=e2e4")
    print(f"at rest: RSS {rss_mib(server.pid)} MiB")
    for round_ in range(3):
        sockets = []
        for _ in range(args.n):
            s = socket.socket()
            s.connect((host, int(port)))
            s.send(b"GET /lichess HTTP/1.1\r\nHost: x\r\n")
            sockets.append(s)
        time.sleep(0.5)
        print(f"round {round_}: {args.n} half-open: RSS {rss_mib(server.pid)} MiB, "
              f"a new client: {get('/health')}")
        for s in sockets:
            s.close()
        time.sleep(2.5)
        print(f"round {round_}: closed: RSS {rss_mib(server.pid)} MiB, "
              f"a new client: {get('/lichess?play=e2e4')}")
    server.terminate()
    server.wait()


if __name__ == "__main__":
    main()

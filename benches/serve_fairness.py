"""`/lichess` latency while 60 `/player` streams run (issue 64).

    python3 benches/serve_fairness.py PGNLAKE DATA [SERVE OPTIONS] < NAMES

NAMES: up to 60 player names, one per line, each streamed as white over
and over (e.g. the 60 most frequent of `pgnlake query -e "SELECT white,
count(*) n FROM games GROUP BY white ORDER BY n DESC LIMIT 60" --data DATA
--format csv`, on benches/serve.sh's players import). For 15 s, one client
asks /lichess for five positions in turn: p50, p90 and max latency.
Standard library only.
"""
import re, subprocess, sys, threading, time, urllib.request, statistics
binary, data = sys.argv[1], sys.argv[2]
extra = sys.argv[3:]
srv = subprocess.Popen([binary,"serve","--data",data,"--listen","127.0.0.1:0"]+extra, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
addr = re.search(r"http://([\d.:]+)/", srv.stdout.readline()).group(1)
players = [f"player{i}" for i in range(60)]
stop = False
def stream(name):
    while not stop:
        try:
            with urllib.request.urlopen(f"http://{addr}/player?player={name}&color=white", timeout=60) as r: r.read()
        except Exception: pass
ts=[threading.Thread(target=stream,args=(p,),daemon=True) for p in sys.stdin.read().split()[:60]]
for t in ts: t.start()
time.sleep(2)
lat=[]
end=time.time()+15
plays=["e2e4","d2d4","e2e4,c7c5","e2e4,e7e5,g1f3","d2d4,g8f6,c2c4"]
i=0
while time.time()<end:
    t=time.time()
    with urllib.request.urlopen(f"http://{addr}/lichess?play={plays[i%5]}&speeds=blitz", timeout=60) as r: r.read()
    lat.append((time.time()-t)*1000); i+=1
stop=True
lat.sort()
print(f"/lichess while 60 /player streams: n={len(lat)} p50={statistics.median(lat):.1f} ms p90={lat[int(.9*len(lat))]:.1f} max={lat[-1]:.1f} ms")
srv.terminate(); srv.wait()

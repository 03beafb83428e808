"""Benchmarks: the medians table shared by the bench scripts.

Each script times interleaved runs into lines `input name wall user sys rss_kib`
(see timed.sh) and prints one table per input with this module.
"""
import statistics


def read_runs(path):
    """{input: {name: [(wall s, CPU s, peak RSS KiB), …]}} from a results file."""
    rows = {}
    for line in open(path):
        fields = line.split()
        input_, name, wall, user, sys_, rss = fields[:6]
        rows.setdefault(input_, {}).setdefault(name, []).append(
            (float(wall), float(user) + float(sys_), int(rss)))
    return rows


def print_table(by_name, games, width=14):
    """Prints median wall, games/s, CPU and its ratio to the floor's, peak RSS;
    returns each run's CPU as a ratio to the floor's."""
    print(f"  {'run':<{width}}{'wall s':>8}{'games/s':>10}{'CPU s':>8}{'µs CPU/game':>13}"
          f"{'× floor CPU':>13}{'peak RSS':>12}")
    floor_cpu = statistics.median(c for _, c, _ in by_name["floor"])
    ratio = {}
    for name, runs in by_name.items():
        wall = statistics.median(w for w, _, _ in runs)
        cpu = statistics.median(c for _, c, _ in runs)
        rss = max(r for _, _, r in runs) / 1024
        ratio[name] = cpu / floor_cpu
        print(f"  {name:<{width}}{wall:>8.2f}{games / wall:>10,.0f}{cpu:>8.1f}"
              f"{cpu / games * 1e6:>13.2f}{cpu / floor_cpu:>13.3f}{rss:>8.0f} MiB")
    return ratio

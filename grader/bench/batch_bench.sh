#!/usr/bin/env bash
# Batch-grading throughput (a benchmark, not a test): grades a synthetic class
# made from the kit's own sample submissions and prints submissions per minute
# and where the time goes (compile vs the rest), on one GPU and, where the
# machine has them, on two. Run from the repository root after `make`:
#   grader/bench/batch_bench.sh [N_SUBMISSIONS=60] [SUITE=testcases/default.yaml]
# Environment: CLASS (mix, nocrash or reference; see below), GRADE (default build/grade), BACKEND (default: gpu when
# nvidia-smi lists a GPU, else cpu), JOBS (grade processes per GPU to try,
# e.g. "4 8"; default the batch's own choice), ONE_GPU=1 (only the one-GPU run
# on a machine with more), TWO_GPUS=1 (only the two-GPU run), KEEP=1 keeps the work folder,
# LOGS=DIR saves each run's reports, grade logs and machine samples there.
set -euo pipefail

N=${1:-60}
SUITE=${2:-testcases/default.yaml}
GRADE=${GRADE:-build/grade}
[[ -x $GRADE ]] || { echo "batch_bench: $GRADE not found; run make first" >&2; exit 2; }
[[ -f $SUITE ]] || { echo "batch_bench: suite $SUITE not found" >&2; exit 2; }

GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
BACKEND=${BACKEND:-$([[ ${GPUS:-0} -gt 0 ]] && echo gpu || echo cpu)}
WORK=$(mktemp -d /tmp/sg-batch-bench-XXXXXX)
[[ ${KEEP:-0} == 1 ]] || trap 'rm -rf "$WORK"' EXIT

# The class (CLASS): mix = the reference, the handout skeleton and every bug
# sample, in turn; nocrash = the same without block_1d (which crashes the GPU
# on every case); reference = copies of the reference.
case ${CLASS:-mix} in
  mix) mapfile -t KERNELS < <(printf '%s\n' reference/kernel.cu student/kernel.cu; ls grader/samples/bugs/*/kernel.cu) ;;
  nocrash) mapfile -t KERNELS < <(printf '%s\n' reference/kernel.cu student/kernel.cu; ls grader/samples/bugs/*/kernel.cu | grep -v /block_1d/) ;;
  reference) KERNELS=(reference/kernel.cu) ;;
  *) echo "batch_bench: CLASS must be mix, nocrash or reference" >&2; exit 2 ;;
esac
for ((i = 0; i < N; i++)); do
  d=$(printf '%s/class/s%03d' "$WORK" "$i")
  mkdir -p "$d"
  cp "${KERNELS[i % ${#KERNELS[@]}]}" "$d/kernel.cu"
done

# Samples the machine once a second while a batch runs: CPU busy share, GPU
# utilisation, and how many processes of each kind are alive (where the
# grade processes spend their time).
monitor() {  # file
  local prev cur
  prev=$(head -1 /proc/stat)
  while sleep 1; do
    cur=$(head -1 /proc/stat)
    local gpu
    gpu=$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits 2>/dev/null | paste -sd/ - || true)
    echo "$prev|$cur|${gpu:-}|$(ps -eo comm= | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')" >>"$1"
    prev=$cur
  done
}

# One batch run; prints a table row.
run() {  # label, extra options...
  local label=$1; shift
  local out="$WORK/out-$label" start end mon
  start=$(date +%s.%N)
  monitor "$WORK/monitor-$label.txt" &
  mon=$!
  "$GRADE" batch "$WORK/class" --out "$out" --suite "$SUITE" --backend "$BACKEND" --seed 1 --quiet "$@"
  end=$(date +%s.%N)
  kill "$mon" 2>/dev/null || true; wait "$mon" 2>/dev/null || true
  # LOGS=DIR keeps each run's reports and grade logs (one archive per run).
  [[ -z ${LOGS:-} ]] || tar czf "$LOGS/batch-$label.tgz" -C "$out" . "../monitor-$label.txt" 2>/dev/null || true
  python3 - "$out" "$label" "$start" "$end" "$N" "$WORK/monitor-$label.txt" <<'PY'
import json, pathlib, sys
out, label, start, end, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
mon = pathlib.Path(sys.argv[6])
compile_s = total_s = exclusive_s = 0.0
phases = {}
for f in pathlib.Path(out).glob("*/results.json"):
    r = json.loads(f.read_text())
    extra = r.get("extra_data", {})
    c = extra.get("compile_time", 0)
    compile_s += c if isinstance(c, (int, float)) else 0
    total_s += r.get("execution_time", 0) or 0
    x = extra.get("gpu_exclusive_time", 0)
    exclusive_s += x if isinstance(x, (int, float)) else 0
    for k, v in (extra.get("phase_seconds") or {}).items():
        if isinstance(v, (int, float)):
            phases[k] = phases.get(k, 0.0) + v
wall = end - start
share = 100 * compile_s / total_s if total_s else 0
print(f"{label:<10} {n:>5} {wall:>9.1f} {60 * n / wall:>10.1f} {compile_s:>10.1f} {total_s - compile_s:>10.1f} {share:>9.0f}%")
order = ["setup", "build", "sanitizer", "correctness", "prepare", "performance", "checks"]
print("         mean seconds per submission: " +
      ", ".join(f"{k} {phases[k] / n:.2f}" for k in order if k in phases) +
      f"; the GPU to itself {exclusive_s / n:.2f} (timed samples and ncu: the serial part of a batch)")
busy, gpu, procs, samples = [], [], {}, 0
for line in (mon.read_text().splitlines() if mon.exists() else []):
    prev, cur, util, counts = line.split("|", 3)
    a = [int(x) for x in prev.split()[1:]]
    b = [int(x) for x in cur.split()[1:]]
    d = [y - x for x, y in zip(a, b)]
    idle = d[3] + (d[4] if len(d) > 4 else 0)
    if sum(d) > 0: busy.append(100.0 * (sum(d) - idle) / sum(d))
    gpu += [float(u) for u in util.split("/") if u.strip()]
    samples += 1
    for kv in counts.split():
        k, _, v = kv.rpartition("=")
        procs[k] = procs.get(k, 0) + int(v)
# The grade logs, lined up by their start lines: how busy the serial part
# (exclusive holds and ncu's turns, which never overlap on one GPU) kept the
# GPU, and how long gradings waited for it.
import re
stamp = re.compile(r"^grade: +([0-9.]+)s (.*)$")
serial, waits = [], {"to itself": [], "ncu": [], "shared": []}
x_waits, long_shared = [], []  # (from, to, log): exclusive requests waiting; shared holds of 0.25 s or more
long_by_phase = {}  # the grading's phase a long shared hold ended in (its sanitizer, its cases): [count, seconds]
for f in pathlib.Path(out).glob("*/grade.log"):
    start, opened, phase = None, {}, "build"
    for line in f.read_text(errors="replace").splitlines():
        m = stamp.match(line)
        if not m: continue
        t, what = float(m.group(1)), m.group(2)
        if what.startswith("started at "): start = float(what.split()[2])
        if start is None: continue
        if what.startswith("sanitizer "): phase = "sanitizer"
        elif what.startswith("case "): phase = "cases"
        elif what.startswith("timing ") or what.startswith("ending the student"): phase = "timing"
        w = re.search(r"after waiting ([0-9.]+) s", what)
        if what.startswith("has the GPU to itself"):
            opened["x"] = start + t; waits["to itself"].append(float(w.group(1)))
            x_waits.append((start + t - float(w.group(1)), start + t, f))
        g = re.search(r"^gives the GPU \(shared\) back after ([0-9.]+) s", what)
        if g:
            long_shared.append((start + t - float(g.group(1)), start + t, f))
            c = long_by_phase.setdefault(phase, [0, 0.0]); c[0] += 1; c[1] += float(g.group(1))
        elif what.startswith("has the GPU shared"): waits["shared"].append(float(w.group(1)))
        elif what.startswith("ncu has the profiler"): opened["n"] = start + t; waits["ncu"].append(float(w.group(1)))
        elif what.startswith("gives the GPU back") and "x" in opened: serial.append((opened.pop("x"), start + t))
        elif what.startswith("ncu gives the profiler back") and "n" in opened: serial.append((opened.pop("n"), start + t))
if serial:
    serial.sort()
    busy_s, cur_s, cur_e = 0.0, *serial[0]
    for s_, e_ in serial[1:]:
        if s_ > cur_e: busy_s += cur_e - cur_s; cur_s, cur_e = s_, e_
        else: cur_e = max(cur_e, e_)
    busy_s += cur_e - cur_s
    print(f"         serial part (exclusive holds and ncu turns): {busy_s:.1f} s of {wall:.1f} s ({100 * busy_s / wall:.0f}%); "
          "waits: " + ", ".join(f"{k} {sum(v):.1f} s in all ({len(v)})" for k, v in waits.items()))
if x_waits:
    # How much of the exclusive requests' waiting fell behind other gradings'
    # long shared holds (a sanitizer run, a hung case): the drain no one works in.
    behind = 0.0
    for a, b, f in x_waits:
        segs = sorted((max(a, x), min(b, y)) for x, y, g in long_shared if g != f and y > a and x < b)
        cur = None
        for x, y in segs:
            if cur is None: cur = [x, y]
            elif x > cur[1]: behind += cur[1] - cur[0]; cur = [x, y]
            else: cur[1] = max(cur[1], y)
        if cur: behind += cur[1] - cur[0]
    mean = sum(y - x for x, y, _ in long_shared) / max(len(long_shared), 1)
    print(f"         exclusive requests waited {sum(b - a for a, b, _ in x_waits):.1f} s, {behind:.1f} s of it behind other "
          f"gradings' shared holds of 0.25 s or more ({len(long_shared)} such holds, {mean:.2f} s on average)")
    print("         shared holds of 0.25 s or more, by the phase they ended in: " +
          ", ".join(f"{k} {n} ({sec:.1f} s in all)" for k, (n, sec) in sorted(long_by_phase.items())))
if serial and label.startswith("1gpu"):
    # The one GPU's lock over the batch, moment by moment: held exclusive;
    # an exclusive request waiting while long shared holds drain; long
    # shared holds only (no one waiting for it to itself); none of these
    # (builds, start-ups, short holds): what bounds the batch.
    edges = sorted([(a, "x", 1) for a, b in serial] + [(b, "x", -1) for a, b in serial] +
                   [(a, "w", 1) for a, b, _ in x_waits] + [(b, "w", -1) for a, b, _ in x_waits] +
                   [(a, "s", 1) for a, b, _ in long_shared] + [(b, "s", -1) for a, b, _ in long_shared])
    names = ["held exclusive", "an exclusive request waiting behind long shared holds",
             "long shared holds only", "none of these"]
    lo = end - wall  # the batch's start ("start" is a grade log's by now)
    spent, now, on = dict.fromkeys(names, 0.0), lo, {"x": 0, "w": 0, "s": 0}
    for t, kind, d in edges + [(end, "", 0)]:
        t = min(max(t, lo), end)
        state = names[0] if on["x"] else names[1] if on["w"] and on["s"] else names[2] if on["s"] and not on["w"] else names[3]
        spent[state] += max(t - now, 0.0); now = max(now, t)
        if kind: on[kind] += d
    print("         the GPU's lock over the batch: " + ", ".join(f"{k} {v:.1f} s ({100 * v / wall:.0f}%)" for k, v in spent.items()))
# Inside each grading's exclusive holds, step by step (its grade log's lines
# in their order): where the serial part of a batch goes, for gradings that
# timed every case. The counted case holds the GPU to itself for its counter
# and its two launches; the timing takes it again for every case's samples.
counted_steps = [("the counter", "load counter opened"), ("the counted launches", "gives the GPU back")]
timing_steps = [("before the first take", "timing "), ("the student's takes", "ending the student's runner"),
                ("ending its runner", "timing the baselines"), ("the baselines", "cuBLAS"),
                ("cuBLAS", "gives the GPU back")]
# A grading that took its baselines from the GPU's record (measure/baseline_book.h)
# gives the GPU back once the student's runner has ended.
recorded_steps = timing_steps[:2] + [("ending its runner", "gives the GPU back")]
tables = {"counted": {n: [] for n, _ in counted_steps}, "timing": {n: [] for n, _ in timing_steps},
          "recorded": {n: [] for n, _ in recorded_steps}}
recorded = 0

def holds_of(text):
    """Each exclusive hold of a grade log: its start and its (time, line) pairs to the give-back."""
    held, start, lines = [], None, []
    for line in text.splitlines():
        m = stamp.match(line)
        if not m: continue
        t, what = float(m.group(1)), m.group(2)
        if what.startswith("has the GPU to itself"):
            start, lines = t, []
        elif start is not None:
            lines.append((t, what))
            if what.startswith("gives the GPU back"):
                held.append((start, lines)); start = None
    return held

def step_times(start, lines, steps):
    """Each step's length, from the hold's start, or None where a step's line is missing."""
    times, prev, out = {}, start, []
    for t, what in lines:
        for name, starts in steps:
            if name not in times and what.startswith(starts): times[name] = t
    if len(times) < len(steps): return None
    for name, _ in steps:
        out.append(times[name] - prev); prev = times[name]
    return out

for f in pathlib.Path(out).glob("*/grade.log"):
    text = f.read_text(errors="replace")
    took_record = "from this GPU's record" in text and "timing the baselines" not in text
    recorded += "from this GPU's record" in text
    for start, lines in holds_of(text):
        whats = [w for _, w in lines]
        if any(w.startswith("load counter opened") for w in whats):
            kind, steps = "counted", counted_steps
        elif any(w.startswith("ending the student's runner") for w in whats):
            kind, steps = ("recorded", recorded_steps) if took_record else ("timing", timing_steps)
        else:
            continue
        got = step_times(start, lines, steps)
        if got:
            for (name, _), v in zip(steps, got): tables[kind][name].append(v)

def means(table):
    done = len(next(iter(table.values())))
    return done, ", ".join(f"{name} {sum(v) / done:.2f} s" for name, v in table.items()) if done else ""
for kind, label in (("counted", "the counted case's exclusive hold"), ("timing", "the timing's exclusive hold")):
    done, said = means(tables[kind])
    if done: print(f"         {label} ({done} gradings, means): {said}")
if recorded:
    done, said = means(tables["recorded"])
    print(f"         baselines from the GPU's record in {recorded} gradings" +
          (f"; the timing's hold in those ({done}, means): {said}" if done else ""))
if samples:
    kinds = ["grade", "runner", "compute-sanitiz", "cicc", "ptxas", "nvcc", "cc1plus", "nvlink", "fatbinary"]
    print(f"         machine: CPU busy {sum(busy) / max(len(busy), 1):.0f}%, GPU busy {sum(gpu) / max(len(gpu), 1):.0f}%;"
          " processes alive on average: " +
          ", ".join(f"{k} {procs.get(k, 0) / samples:.1f}" for k in kinds if procs.get(k)))
PY
}

echo "batch_bench: $N submissions (class ${CLASS:-mix}), suite $SUITE, backend $BACKEND, $(nproc) CPUs, ${GPUS:-0} GPUs"
printf '%-10s %5s %9s %10s %10s %10s %10s\n' setup subs wall_s subs/min compile_s other_s compile
if [[ $BACKEND == cpu ]]; then
  run cpu
else
  # JOBS: grade processes per GPU to try (default: the batch's own choice).
  for j in ${JOBS:-0}; do
    extra=(); [[ $j == 0 ]] || extra=(--jobs "$j")
    [[ ${TWO_GPUS:-0} == 1 && $GPUS -ge 2 ]] || run "1gpu-j$j" --gpus 0 "${extra[@]}"
    if [[ $GPUS -ge 2 && ${ONE_GPU:-0} != 1 ]]; then
      [[ $j == 0 ]] || extra=(--jobs $((2 * j)))
      run "2gpu-j$j" --gpus 0,1 "${extra[@]}"
    fi
  done
fi
echo "(compile_s and other_s add up the grade processes' own times, which overlap in parallel;"
echo " 'compile' is the share of grading time spent compiling and linking)"

#!/usr/bin/env python3
"""Rewrites grader/samples/*/*/expect.yaml from absolute score ranges (score:, cpu_score:) to
the suite-relative format (the range derived from must_pass, must_fail, cpu_stricter and
testcases/default.yaml; grader/samples/README.md, "The score range"). Run once on the corpus;
kept for samples written in the old format on other branches (files already converted are
left alone). Prints, per sample and backend, the old range, the range the lists gave, the
range after the conversion and what was added:
  - old range == or tighter than the lists' range (the lists are checked anyway): score lines go;
  - old GPU range [0, 0] (graded): the unlisted tests go to must_fail (a failed test earns 0);
  - old GPU range [total, total]: the unlisted tests go to must_pass;
  - otherwise: gpu_score_fraction keeps the old bound as a fraction of the total;
  - no cpu_score: cpu_not_graded with the reason in CPU_NOT_GRADED.
It refuses any sample whose converted range would be looser than the old one. Edits the text
line by line so that every comment stays. Needs PyYAML.
Usage: convert_sample_expect.py [--dry-run] [REPO_ROOT]"""
import glob, os, re, sys
import yaml

args = [a for a in sys.argv[1:] if a != "--dry-run"]
dry = "--dry-run" in sys.argv
root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")
suite = yaml.safe_load(open(os.path.join(root, "testcases/default.yaml")))

# The tests each backend grades, with their points (plan_tests: the CPU backend sets aside
# both tests of a performance case).
gpu, cpu = {}, {}
for c in suite["cases"]:
    gpu[c["name"]] = c.get("points", 0)
    if "performance" in c:
        gpu[c["name"] + "/performance"] = c["performance"]["points"]
    else:
        cpu[c["name"]] = c.get("points", 0)
for c in suite["checks"]:
    gpu[c["name"]] = cpu[c["name"]] = c["points"]

CPU_NOT_GRADED = {
    "hostile/calls_cublas": "the CPU backend cannot build a file that includes cublas_v2.h",
    "hostile/defines_event_elapsed": "its cudaEventElapsedTime clashes with the CUDA-on-CPU layer's own",
    "hostile/defines_main": "its main clashes with the CPU runner's own when linking",
    "hostile/exhausts_processes": "its own runner needs threads too: its score depends on how many it took",
    "hostile/kills_everything": "as a non-root user without the sandbox it would kill the test itself; grader/tests/hostile_sandbox_test.cpp grades it on the CPU backend",
    "hostile/own_stream_early_return": "whether the CUDA-on-CPU layer has streams at all decides how the CPU build goes",
    "hostile/swaps_output_files": "the CPU backend does not build inline assembly",
    "hostile/syscall_exit_pass": "the CPU backend does not build inline assembly",
    "hostile/syscall_forged_results": "the CPU backend does not build inline assembly",
}


def derive(e, tests, is_cpu):
    if e.get("state", "graded") != "graded":
        return (0.0, 0.0)
    total = sum(tests.values())
    passing = set(e.get("must_pass") or [])
    failing = set(e.get("must_fail") or [])
    if is_cpu:
        failing |= set((e.get("cpu_stricter") or {}).get("tests") or [])
    lo = sum(p for t, p in tests.items() if t in passing)
    hi = total - sum(p for t, p in tests.items() if t in failing)
    if not is_cpu and e.get("gpu_score_fraction"):
        f = e["gpu_score_fraction"]
        lo, hi = max(lo, f[0] * total), min(hi, f[1] * total)
    return (lo, hi)


def kind(old, new):
    if old == new:
        return "exact"
    if new[0] >= old[0] and new[1] <= old[1]:
        return "tighter"
    if new[0] <= old[0] and new[1] >= old[1]:
        return "looser"
    return "CONFLICT"


def fmt(r):
    return "-" if r is None else f"[{r[0]:g}, {r[1]:g}]"


def add_to_list(lines, key, names, after_key):
    """Appends names to the one-line flow list `key: [...]`, or adds the line after `after_key:`."""
    for i, l in enumerate(lines):
        if l.startswith(key + ":"):
            m = re.match(r"^(%s:\s*\[)(.*)\](\s*)$" % re.escape(key), l)
            assert m, l
            items = [x.strip() for x in m.group(2).split(",") if x.strip()]
            order = list(gpu)  # suite order, as the lists are written
            items = sorted(items + names, key=lambda t: order.index(t) if t in order else len(order))
            lines[i] = m.group(1) + ", ".join(items) + "]" + m.group(3)
            return
    for i, l in enumerate(lines):
        if l.startswith(after_key + ":"):
            lines.insert(i + 1, f"{key}: [{', '.join(names)}]\n")
            return
    raise SystemExit(f"no {after_key}: line")


rows, counts = [], {}
gtotal = sum(gpu.values())
for path in sorted(glob.glob(os.path.join(root, "grader/samples/*/*/expect.yaml"))):
    name = os.path.relpath(os.path.dirname(path), os.path.join(root, "grader/samples"))
    text = open(path, encoding="utf-8").read()
    e = yaml.safe_load(text)
    lines = text.splitlines(keepends=True)
    if "score" not in e:
        continue  # already converted
    actions = []
    old_gpu = tuple(float(x) for x in e["score"])
    old_cpu = tuple(float(x) for x in e["cpu_score"]) if "cpu_score" in e else None
    d_gpu = derive(e, gpu, False)
    k_gpu = kind(old_gpu, d_gpu)
    state = e.get("state", "graded")
    if k_gpu in ("looser", "CONFLICT"):
        listed = set(e.get("must_pass") or []) | set(e.get("must_fail") or []) | set(
            (e.get("cpu_stricter") or {}).get("tests") or [])
        unlisted = [t for t, p in gpu.items() if p > 0 and t not in listed]
        if state == "graded" and old_gpu[1] == 0:
            # 0 on a GPU: every test scored 0; those not yet listed fail (a failed test earns 0).
            add_to_list(lines, "must_fail", unlisted, "state")
            e.setdefault("must_fail", []).extend(unlisted)
            actions.append("must_fail += " + " ".join(unlisted))
        elif state == "graded" and old_gpu[0] == gtotal:
            # Full marks on a GPU: every test passed.
            add_to_list(lines, "must_pass", unlisted, "state")
            e.setdefault("must_pass", []).extend(unlisted)
            actions.append("must_pass += " + " ".join(unlisted))
        else:
            # No test-by-test reason: keep the old bound as a fraction of the suite's total.
            f = (old_gpu[0] / gtotal if d_gpu[0] < old_gpu[0] else 0.0,
                 old_gpu[1] / gtotal if d_gpu[1] > old_gpu[1] else 1.0)
            e["gpu_score_fraction"] = list(f)
            actions.append(f"gpu_score_fraction: [{f[0]:g}, {f[1]:g}]")
    # score: becomes gpu_score_fraction (if any) and cpu_not_graded (if no cpu_score); cpu_score: goes.
    out = []
    for l in lines:
        if l.startswith("score:"):
            if "gpu_score_fraction" in e:
                f = e["gpu_score_fraction"]
                out.append(f"# gpu_score_fraction: the GPU bound this file gave in points ({fmt(old_gpu)} of "
                           f"{gtotal:g}) before ranges were derived\n# from the suite; no list can name the tests "
                           f"a GPU loses to this race.\n")
                out.append(f"gpu_score_fraction: [{f[0]:g}, {f[1]:g}]\n")
            if old_cpu is None:
                if name not in CPU_NOT_GRADED:
                    raise SystemExit(f"{name}: no cpu_score; add why to CPU_NOT_GRADED")
                why = CPU_NOT_GRADED[name]
                out.append(f'cpu_not_graded: "{why}"\n')
                e["cpu_not_graded"] = why
                actions.append("cpu_not_graded")
            continue
        if l.startswith("cpu_score:"):
            continue
        if l.startswith("#"):
            l = l.replace("No cpu_score", "cpu_not_graded")
            if name == "hostile/own_stream_early_return":
                l = l.replace("(streams are not allowed). No\n", "(streams are not allowed).\n")
                l = l.replace("# cpu_score: whether", "# cpu_not_graded: whether")
        out.append(l)
    new_text = "".join(out)
    assert not any(x.startswith(("score:", "cpu_score:")) for x in out), name
    e2 = yaml.safe_load(new_text)
    n_gpu = derive(e2, gpu, False)
    n_cpu = None if "cpu_not_graded" in e2 else derive(e2, cpu, True)
    assert (old_cpu is None) == (n_cpu is None), name
    for old, new, key in ((old_gpu, n_gpu, "gpu"), (old_cpu, n_cpu, "cpu")):
        if old is None:
            continue
        k = kind(old, new)
        if k not in ("exact", "tighter"):
            raise SystemExit(f"{name} {key}: {fmt(old)} -> {fmt(new)} ({k})")
        if key == "gpu" and actions and actions != ["cpu_not_graded"]:
            k += " after additions"
        counts[(key, k)] = counts.get((key, k), 0) + 1
    rows.append((name, fmt(old_gpu), fmt(d_gpu), fmt(n_gpu), fmt(old_cpu), fmt(n_cpu),
                 "; ".join(actions) or "-"))
    if not dry:
        open(path, "w", encoding="utf-8").write(new_text)

if not rows:
    sys.exit("every expect.yaml is in the new format already")
w = [max(len(r[i]) for r in rows) for i in range(6)]
hdr = ("sample", "gpu old", "gpu lists", "gpu now", "cpu old", "cpu now")
print("  ".join(h.ljust(w[i]) for i, h in enumerate(hdr)) + "  added")
for r in rows:
    print("  ".join(r[i].ljust(w[i]) for i in range(6)) + "  " + r[6])
print("summary:", ", ".join(f"{k[0]} {k[1]}: {v}" for k, v in sorted(counts.items())))

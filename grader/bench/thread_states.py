#!/usr/bin/env python3
"""What every thread on the machine waits on, sampled while something else runs (a batch).

Usage: thread_states.py OUT STOPFILE [PERIOD_S=0.05]
Every PERIOD_S it reads each thread's state, the system call it is blocked in and its kernel wait
channel (/proc/<pid>/task/<tid>/{stat,syscall,wchan}; run as root to see every process's), until
STOPFILE exists; then it writes to OUT the mean number of threads of each kind (grade, runner,
baseline_runner, sanitizer, the build's tools, bwrap) in each state, and the most common
(kind, state, system call, wait channel). Threads in D state in ioctl with os_acquire_rwlock_* wait
for the NVIDIA driver's lock, which every GPU of the machine shares (grader/bench/RESULTS.md).
"""
import collections
import os
import sys
import time

# x86-64 system call numbers the grader's processes block in.
SYSCALLS = {0: 'read', 1: 'write', 3: 'close', 7: 'poll', 9: 'mmap', 11: 'munmap', 16: 'ioctl', 23: 'select',
            35: 'nanosleep', 56: 'clone', 59: 'execve', 61: 'wait4', 72: 'fcntl', 73: 'flock', 166: 'umount2',
            202: 'futex', 219: 'restart_syscall', 230: 'clock_nanosleep', 232: 'epoll_wait', 257: 'openat',
            263: 'unlinkat', 271: 'ppoll', 281: 'epoll_pwait', 435: 'clone3'}
BUILD_TOOLS = {'nvcc', 'cicc', 'cudafe++', 'ptxas', 'fatbinary', 'gcc', 'cc1plus', 'as', 'ld', 'collect2', 'nvlink',
               'objcopy', 'nm'}


def kind(comm):
    if comm.startswith('grade'):
        return 'grade'
    if comm in ('runner', 'baseline_runner'):
        return comm
    if 'sanitiz' in comm:
        return 'sanitizer'
    if comm in BUILD_TOOLS:
        return 'build:' + comm
    if comm.startswith('bwrap'):
        return 'bwrap'
    return 'other:' + comm


def sample(counts, by_state):
    runnable = 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            tasks = os.listdir(f'/proc/{pid}/task')
        except OSError:
            continue
        for tid in tasks:
            base = f'/proc/{pid}/task/{tid}/'
            try:
                stat = open(base + 'stat').read()
                comm, state = stat[stat.index('(') + 1:stat.rindex(')')], stat[stat.rindex(')') + 2]
                k = kind(comm)
                runnable += state == 'R'
                if state in 'SI' and k.startswith('other:'):
                    continue  # the machine's idle daemons
                call = open(base + 'syscall').read().split()[0]
                call = SYSCALLS.get(int(call), call) if call.lstrip('-').isdigit() else call
                wchan = open(base + 'wchan').read().strip() or '0'
            except (OSError, ValueError, IndexError):
                continue  # ended meanwhile
            counts[(k, state, call, wchan)] += 1
            by_state[(k, state)] += 1
    return runnable


def main():
    out, stopfile = sys.argv[1], sys.argv[2]
    period = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    counts, by_state, runnable = collections.Counter(), collections.Counter(), collections.Counter()
    samples, t0 = 0, time.time()
    while not os.path.exists(stopfile):
        runnable[sample(counts, by_state)] += 1
        samples += 1
        time.sleep(period)
    with open(out, 'w') as f:
        f.write(f'{samples} samples over {time.time() - t0:.1f} s\n')
        f.write('runnable threads in a sample (threads:samples): ' +
                ', '.join(f'{k}:{v}' for k, v in sorted(runnable.items())) + '\n\nmean threads by kind and state:\n')
        for (k, s), v in by_state.most_common(40):
            f.write(f'  {v / max(samples, 1):7.2f}  {k:24s} {s}\n')
        f.write('\nmean threads by kind, state, system call and wait channel:\n')
        for (k, s, call, wchan), v in counts.most_common(70):
            f.write(f'  {v / max(samples, 1):7.2f}  {k:24s} {s} {call:16s} {wchan}\n')


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""sandbox_syscalls.py [--wrap 'CMD ...'] [--jobs N] [--args 'ARGS'] SKINVIEW FILE...

Measures what the guarded child really asks of the kernel once it is
sandboxed: runs `SKINVIEW FILE --list` (or ARGS) under `strace -f` for each
file and collects every system call a sandboxed process made after
prctl(PR_SET_NO_NEW_PRIVS) (sandbox_enter's first step), threads it
started included, with the arguments the seccomp filter looks at (mmap's
prot, clone's flags, openat's flags, ioctl's command, prctl's option, ...)
and the pids of kill/tgkill/prlimit64 as self or other. Calls the filter
refused show as "-1 EPERM/ENOSYS/EACCES" in the counts of their errors.

--wrap runs skinview under another program (valgrind: --wrap 'valgrind
-q'); strace then follows that program and its children, which for
valgrind includes the tool's own calls. Prints one line per call: name,
count, errors, the argument forms seen, and how many files made it.
The allowlist in src/import/sandbox.c was derived from this output over
the corpus (README, "Broken files"); run it again when the child learns to
read something new."""
import argparse, collections, concurrent.futures, os, re, shlex, subprocess, sys, tempfile

LINE = re.compile(r'^(\d+)\s+(.*)$')
CALL = re.compile(r'^([a-z_0-9]+)\((.*)\)\s+=\s+(.*)$')
RESUMED = re.compile(r'^<\.\.\. ([a-z_0-9]+) resumed>(.*)$')

# The argument (0-based) whose form is kept, per call.
KEY_ARG = {'mmap': 2, 'mprotect': 2, 'pkey_mprotect': 2, 'clone': 0, 'openat': 2, 'open': 1,
           'ioctl': 1, 'fcntl': 1, 'prctl': 0, 'madvise': 2, 'socket': 0, 'arch_prctl': 0,
           'rt_sigaction': 0, 'futex': 1, 'mremap': 3, 'prlimit64': 1, 'setrlimit': 0, 'getrlimit': 0,
           'clock_gettime': 0, 'clock_nanosleep': 0, 'sched_getaffinity': 0, 'fadvise64': 3,
           'memfd_create': 1, 'getrandom': 2, 'rseq': 2, 'membarrier': 0, 'close_range': 2,
           'faccessat2': 2, 'statx': 2, 'newfstatat': 3, 'fallocate': 1, 'sigaltstack': 0,
           'rt_sigprocmask': 0, 'wait4': 0, 'seccomp': 0, 'landlock_create_ruleset': 2}
PID_ARG = {'kill': 0, 'tgkill': 0, 'prlimit64': 0, 'sched_getaffinity': 0, 'sched_setaffinity': 0,
           'sched_setscheduler': 0, 'setpriority': 1, 'getpriority': 1, 'sched_getparam': 0,
           'sched_getscheduler': 0, 'tkill': 0, 'wait4': 0}


def split_args(text):
    """Top-level comma-separated arguments of strace's rendering."""
    out, depth, cur, quote = [], 0, '', False
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            cur += c
            if c == '\\' and i + 1 < len(text):
                cur += text[i + 1]
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote, cur = True, cur + c
        elif c in '([{':
            depth, cur = depth + 1, cur + c
        elif c in ')]}':
            depth, cur = depth - 1, cur + c
        elif c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def trace_one(skinview, wrap, args, path):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, 'trace')
        cmd = ['strace', '-f', '-qq', '-s', '0', '-o', log] + wrap + [skinview, path] + args
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        with open(log, errors='replace') as f:
            lines = f.read().splitlines()
    sandboxed, pending = set(), {}
    opened, most = {}, 0  # per process: descriptors it opened itself and holds
    calls = []  # (name, args, result, pid, self pid)
    tgid = {}
    for raw in lines:
        m = LINE.match(raw)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.endswith('<unfinished ...>'):
            pending[pid] = rest[:-len('<unfinished ...>')]
            continue
        r = RESUMED.match(rest)
        if r:
            rest = pending.pop(pid, r.group(1) + '(') + r.group(2)
        c = CALL.match(rest)
        if not c:
            continue
        name, argtext, result = c.group(1), c.group(2), c.group(3)
        args_ = split_args(argtext)
        if name in ('clone', 'clone3', 'fork', 'vfork'):
            child = result.split()[0]
            if child.isdigit():
                child = int(child)
                thread = 'CLONE_THREAD' in argtext
                tgid[child] = tgid.get(pid, pid) if thread else child
                if pid in sandboxed:
                    sandboxed.add(child)
        if pid in sandboxed:
            calls.append((name, args_, result, pid, tgid.get(pid, pid)))
            held = opened.setdefault(tgid.get(pid, pid), set())
            got = result.split()[0] if result else ''
            if name in ('openat', 'open', 'dup', 'dup2', 'dup3', 'memfd_create', 'socket') and got.isdigit():
                held.add(int(got))
            elif name == 'close' and args_ and args_[0].isdigit():
                held.discard(int(args_[0]))
            most = max(most, len(held))
        if name == 'prctl' and args_ and args_[0] == 'PR_SET_NO_NEW_PRIVS':
            sandboxed.add(pid)
    return path, calls, most


def form(name, args, pid, self_pid):
    parts = []
    if name in KEY_ARG and KEY_ARG[name] < len(args):
        a = args[KEY_ARG[name]]
        if name == 'clone':
            a = re.sub(r'child_stack=\S+|parent_tid=\S+|child_tidptr=\S+|tls=\S+', '', a)
            a = re.search(r'flags=([A-Z_|0-9x]+)', ','.join(args))
            a = a.group(1) if a else '?'
        if name == 'rseq':
            a = args[2] if len(args) > 2 else '?'
        parts.append(a)
    if name in PID_ARG and PID_ARG[name] < len(args):
        v = args[PID_ARG[name]]
        try:
            n = int(v)
            parts.append('pid=' + ('0' if n == 0 else 'self' if n in (pid, self_pid) else
                                   'neg' if n < 0 else 'other'))
        except ValueError:
            parts.append('pid=' + v)
    return ' '.join(parts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--wrap', default='')
    ap.add_argument('--args', default='--list')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('skinview')
    ap.add_argument('files', nargs='+')
    o = ap.parse_args()
    wrap, args = shlex.split(o.wrap), shlex.split(o.args)
    count, errors, forms, files = (collections.Counter(), collections.defaultdict(collections.Counter),
                                   collections.defaultdict(collections.Counter), collections.defaultdict(set))
    max_fd = max_held = 0
    with concurrent.futures.ThreadPoolExecutor(o.jobs) as pool:
        for path, calls, held in pool.map(lambda p: trace_one(o.skinview, wrap, args, p), o.files):
            max_held = max(max_held, held)
            for name, a, result, pid, self_pid in calls:
                count[name] += 1
                files[name].add(path)
                e = re.match(r'-1 (E[A-Z0-9]+)', result)
                if e:
                    errors[name][e.group(1)] += 1
                elif name in ('openat', 'open', 'dup', 'dup2', 'dup3', 'pipe2', 'memfd_create', 'socket',
                              'fcntl') and result.split()[0].isdigit():
                    max_fd = max(max_fd, int(result.split()[0]))
                f = form(name, a, pid, self_pid)
                if f:
                    forms[name][f] += 1
    for name in sorted(count):
        err = ' '.join('%s:%d' % kv for kv in sorted(errors[name].items()))
        fs = '; '.join('%s (%d)' % kv for kv in forms[name].most_common())
        print('%-24s %8d  files %4d  %s%s' % (name, count[name], len(files[name]),
                                                'errors ' + err + '  ' if err else '', fs))
    print('largest descriptor a sandboxed process got: %d' % max_fd)
    print('most descriptors a sandboxed process opened and held at once: %d' % max_held)


if __name__ == '__main__':
    main()

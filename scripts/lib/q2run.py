"""Helpers shared by scripts/bench and scripts/validate: where the programs
are, running one with its wall time and peak memory, describing the machine."""
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def build_dir():
    return os.environ.get("Q2MAP_BUILD_DIR", os.path.join(ROOT, "build"))


def bin_dir():
    return os.path.join(build_dir(), "bin")


PROGRAMS = ("qbsp", "qvis", "qrad", "qview", "bspinfo", "q2map")


def ensure_built(quiet=True):
    """Configures the Release tree and builds its programs (not the tests,
    which these scripts do not need); a no-op when up to date."""
    b = build_dir()
    out = subprocess.DEVNULL if quiet else None
    subprocess.run(["cmake", "-S", ROOT, "-B", b, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                   check=True, stdout=out)
    listing = subprocess.run(["ninja", "-C", b, "-t", "targets", "all"], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
    have = sorted({line.split(":", 1)[0] for line in listing.splitlines()} & set(PROGRAMS))
    if have:
        subprocess.run(["cmake", "--build", b, "--target"] + have, check=True, stdout=out)


def prog(name):
    p = os.path.join(bin_dir(), name)
    return p if os.access(p, os.X_OK) else None


class Result:
    def __init__(self, status, wall, maxrss_kb, output, timed_out=False, cpu=0.0):
        self.status, self.wall, self.maxrss_kb = status, wall, maxrss_kb
        self.output, self.timed_out = output, timed_out
        self.cpu = cpu  # user + system seconds, all threads

    @property
    def ok(self):
        return self.status == 0 and not self.timed_out


# GNU time; Q2MAP_GNU_TIME names another copy (a device machine without the
# package gets one from scripts/device-kit).
GNU_TIME = os.environ.get("Q2MAP_GNU_TIME", "/usr/bin/time")


def child_env():
    """The environment of the programs run: this one, with LD_LIBRARY_PATH
    set from Q2MAP_CHILD_LIBRARY_PATH where that is set (scripts/device-kit's
    libraries for the programs alone, not for this Python)."""
    libs = os.environ.get("Q2MAP_CHILD_LIBRARY_PATH")
    return dict(os.environ, LD_LIBRARY_PATH=libs) if libs else None


def run(argv, timeout=None, cwd=None, log=None):
    """Runs argv (no shell) and returns its exit status, wall seconds, peak
    resident memory in KiB, CPU seconds and combined output. Output goes to
    a temporary file so a chatty child never blocks on a full pipe.

    Peak memory: Linux carries a process's peak RSS across exec, so a child
    forked from this Python process never reports less than Python's own
    ~16 MiB. GNU time (Debian package `time`) is a small C program whose
    child starts near 1 MiB, so it is used when installed; otherwise wait4's
    figure is kept and small peaks read as that floor."""
    import tempfile
    import signal
    use_time = os.access(GNU_TIME, os.X_OK)
    with tempfile.TemporaryFile() as tmp, tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        cmd = [GNU_TIME, "-q", "-f", "%M %U %S", "-o", tf.name] + list(argv) if use_time else list(argv)
        t0 = time.monotonic()
        # A session of its own, so a timeout kills the program, not just time.
        p = subprocess.Popen(cmd, stdout=tmp, stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True,
                             env=child_env())
        timed_out = False
        deadline = None if timeout is None else t0 + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if deadline is not None and time.monotonic() > deadline:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, ru = os.wait4(p.pid, 0)
                timed_out = True
                break
            time.sleep(0.002)
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        tmp.seek(0)
        text = tmp.read().decode("utf-8", "replace")
        rss, cpu = ru.ru_maxrss, ru.ru_utime + ru.ru_stime
        if use_time and not timed_out:
            lines = [l.split() for l in tf.read().splitlines() if l.strip()]
            if lines and len(lines[-1]) == 3:
                try:
                    rss = int(lines[-1][0])
                    cpu = float(lines[-1][1]) + float(lines[-1][2])
                except ValueError:
                    pass
    if log is not None:
        log.write("$ %s\n%s\n" % (" ".join(argv), text))
    return Result(p.returncode, wall, rss, text, timed_out, cpu)


def machine():
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kb = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_kb = int(line.split()[1])
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "mem_gib": round(mem_kb / 1048576, 1),
            "kernel": platform.release(), "python": platform.python_version()}


def median(xs):
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return None
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def die(msg, code=2):
    print(msg, file=sys.stderr)
    sys.exit(code)

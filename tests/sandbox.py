"""Throwaway PostgreSQL and Redis servers in a temporary directory, on free loopback ports.

For the tests and ``bench/server_load.py --cluster``: each starts Debian's own server
binaries (``postgresql``, ``redis-server``), never a download, and removes everything it
made when stopped. PostgreSQL refuses to run as root, so as root (CI) it runs as the
unprivileged ``nobody`` user. Durability settings are relaxed (no fsync): what the tests
check is survival of a killed process, which does not need the disk to be synced.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

#: Where Debian puts each PostgreSQL major version's programs (the newest one is used).
POSTGRES_BIN_GLOB = "/usr/lib/postgresql/*/bin"
REDIS_SERVER = "/usr/bin/redis-server"
#: The unprivileged user PostgreSQL runs as when we are root (uid, gid of ``nobody``).
NOBODY = (65534, 65534)


class SandboxError(RuntimeError):
    """A sandbox server could not be started."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_bin() -> Path | None:
    """The directory of the newest installed PostgreSQL's programs, or None."""
    override = os.environ.get("FOURONEFOUR_PG_BIN")
    if override:
        return Path(override)
    found = sorted(
        (Path(p) for p in glob.glob(POSTGRES_BIN_GLOB) if (Path(p) / "postgres").exists()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    return found[-1] if found else None


def redis_server() -> Path | None:
    found = shutil.which("redis-server") or (REDIS_SERVER if Path(REDIS_SERVER).exists() else None)
    return Path(found) if found else None


def missing() -> str | None:
    """Why the sandbox cannot run here (a binary is not installed), or None."""
    if postgres_bin() is None:
        return "PostgreSQL is not installed (Debian: apt-get install postgresql)"
    if redis_server() is None:
        return "Redis is not installed (Debian: apt-get install redis-server)"
    return None


def _wait_for_port(port: int, process: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SandboxError(f"{what} exited: {log.read_text(errors='replace')[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise SandboxError(f"{what} did not listen on port {port} within 60 s")


class _LocalServer:
    """A server process of its own in a temporary folder: stopped with ``stop_signal``
    (killed if it is not gone within ``stop_seconds``), the folder removed at ``close``."""

    stop_signal = signal.SIGTERM
    stop_seconds = 10.0
    process: subprocess.Popen[bytes] | None
    root: Path

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(self.stop_signal)
        try:
            process.wait(self.stop_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def close(self) -> None:
        self.stop()
        if not getattr(self, "kept", False):
            shutil.rmtree(self.root, ignore_errors=True)


class LocalPostgres(_LocalServer):
    """A PostgreSQL cluster of its own: ``start`` (again after ``stop``), ``url``, ``close``."""

    #: A fast shutdown: open sessions are ended, the data kept.
    stop_signal = signal.SIGINT
    stop_seconds = 30.0

    def __init__(self, port: int | None = None, root: Path | None = None) -> None:
        """``root``: a folder of the caller's, kept at ``close`` and used again by the next
        cluster given it (a bench's filled database); else a temporary one."""
        bindir = postgres_bin()
        if bindir is None:
            raise SandboxError("PostgreSQL is not installed")
        self.bindir = bindir
        self.port = port or free_port()
        self.kept = root is not None
        if root is not None:
            root.mkdir(parents=True, exist_ok=True)
        self.root = root or Path(tempfile.mkdtemp(prefix="fouronefour-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._as_root = os.geteuid() == 0
        if self._as_root:  # the files are the unprivileged server's own
            os.chown(self.root, *NOBODY)
        self.process: subprocess.Popen[bytes] | None = None
        self._databases = 0
        if self.kept and (self.data / "PG_VERSION").exists():
            return
        self._run(
            [
                str(bindir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ]
        )

    def _command(self, argv: list[str]) -> list[str]:
        if not self._as_root:
            return argv
        uid, gid = NOBODY
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", *argv]

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(
            self._command(argv), capture_output=True, cwd=self.root, check=False, timeout=120
        )
        if done.returncode != 0:
            raise SandboxError(f"{argv[0]} failed: {done.stderr.decode(errors='replace')}")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return self.url
        settings = {
            "listen_addresses": "127.0.0.1",
            "unix_socket_directories": str(self.root),
            "fsync": "off",
            "full_page_writes": "off",
            "max_connections": "200",
            "shared_buffers": "64MB",
        }
        argv = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        for key, value in settings.items():
            argv += ["-c", f"{key}={value}"]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self._command(argv), stdout=log, stderr=subprocess.STDOUT, cwd=self.root
            )
        _wait_for_port(self.port, self.process, "postgres", self.log)
        self._wait_ready()
        return self.url

    def _wait_ready(self) -> None:
        """The port opens before the server accepts logins (it may still be recovering)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = subprocess.run(
                [str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)],
                capture_output=True,
                check=False,
            )
            if done.returncode == 0:
                return
            time.sleep(0.05)
        raise SandboxError("postgres did not accept connections within 60 s")

    def new_database(self) -> str:
        """A new empty database in this cluster; returns its URL."""
        self._databases += 1
        name = f"db{self._databases}"
        done = subprocess.run(
            [
                str(self.bindir / "createdb"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-T",
                "template0",
                name,
            ],
            capture_output=True,
            check=False,
            timeout=60,
        )
        if done.returncode != 0:
            raise SandboxError(f"createdb failed: {done.stderr.decode(errors='replace')}")
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"


class LocalRedis(_LocalServer):
    """A Redis server of its own, keeping nothing on disk: ``start``, ``stop``, ``close``."""

    def __init__(self, port: int | None = None) -> None:
        binary = redis_server()
        if binary is None:
            raise SandboxError("Redis is not installed")
        self.binary = binary
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="fouronefour-redis-"))
        self.log = self.root / "redis.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return self.url
        argv = [
            str(self.binary),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.root),
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
        ]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        _wait_for_port(self.port, self.process, "redis-server", self.log)
        return self.url


HAPROXY = "/usr/sbin/haproxy"


def haproxy() -> Path | None:
    found = shutil.which("haproxy") or (HAPROXY if Path(HAPROXY).exists() else None)
    return Path(found) if found else None


def haproxy_config(port: int, servers: list[tuple[str, int]], host: str = "127.0.0.1") -> str:
    """The load balancer of docs/hosting.md (section 4) on ``port``, in front of ``servers``
    (node name, port): a socket or call whose URL names a node (``?node=n2``) goes to that
    process while it is up, anything else round-robin; a process that does not answer is
    skipped (health check, and a connection refused is tried on another)."""
    lines = [
        "global",
        "    maxconn 9000",
        "defaults",
        "    mode http",
        "    maxconn 9000",
        "    timeout connect 1s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    timeout tunnel 1h",
        "    option redispatch 1",  # (every retry elsewhere: docs/hosting.md)
        "    retries 2",
        "frontend play",
        f"    bind {host}:{port}",
        "    default_backend fouronefour",
        "backend fouronefour",
        "    balance roundrobin",
        "    option httpchk GET /api/health",
    ]
    lines += [f"    use-server {name} if {{ urlp(node) -m str {name} }}" for name, _ in servers]
    lines += [
        f"    server {name} {host}:{server_port} check inter 500ms fall 1 rise 1"
        for name, server_port in servers
    ]
    return "\n".join(lines) + "\n"


class LocalHaproxy(_LocalServer):
    """HAProxy of its own in front of a cluster's processes: ``start``, ``url``, ``close``."""

    def __init__(self, servers: list[tuple[str, int]], port: int | None = None) -> None:
        binary = haproxy()
        if binary is None:
            raise SandboxError("HAProxy is not installed (Debian: apt-get install haproxy)")
        self.binary = binary
        self.port = port or free_port()
        self.root = Path(tempfile.mkdtemp(prefix="fouronefour-haproxy-"))
        self.config = self.root / "haproxy.cfg"
        self.config.write_text(haproxy_config(self.port, servers))
        self.log = self.root / "haproxy.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> str:
        if self.process is not None and self.process.poll() is None:
            return self.url
        check = subprocess.run(
            [str(self.binary), "-c", "-q", "-f", str(self.config)], capture_output=True, check=False
        )
        if check.returncode != 0:
            raise SandboxError(f"haproxy refused its configuration: {check.stderr.decode()}")
        with self.log.open("ab") as log:
            # -db: in the foreground, so that stopping this process stops it.
            self.process = subprocess.Popen(
                [str(self.binary), "-db", "-f", str(self.config)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        _wait_for_port(self.port, self.process, "haproxy", self.log)
        return self.url

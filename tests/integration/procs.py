"""What a process tree holds, read from /proc: its members and its listening TCP sockets."""

from __future__ import annotations

from pathlib import Path

_LISTEN = "0A"


def _parents() -> dict[int, int]:
    """Every live (non-zombie) process and its parent."""
    found: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":
            found[int(stat.parent.name)] = int(fields[1])
    return found


def tree(root: int) -> set[int]:
    """``root`` and all its live descendants."""
    parents = _parents()
    members = {root} if root in parents else set()
    grew = True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in members} - members
        members |= more
        grew = bool(more)
    return members


def _socket_inodes(pid: int) -> set[str]:
    inodes: set[str] = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = fd.readlink().name
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    return inodes


def listening_tcp_ports(pids: set[int]) -> list[int]:
    """The TCP ports (IPv4 and IPv6) on which any of ``pids`` listens."""
    owned = set().union(*(_socket_inodes(pid) for pid in pids)) if pids else set()
    ports: list[int] = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == _LISTEN and fields[9] in owned:
                ports.append(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def command_name(pid: int) -> str:
    """The process's name (``comm``), "" once it is gone."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def argv(pid: int) -> list[str]:
    """The process's command line, [] once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def display_locked(display: str) -> bool:
    """Whether an X server still holds the lock file of ``display`` (":N")."""
    return Path(f"/tmp/.X{display.lstrip(':')}-lock").exists()

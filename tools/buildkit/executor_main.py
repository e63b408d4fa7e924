"""The init of a long-lived sandbox (see executor.py): runs one step per request and kills everything the
step left before answering. Runs as PID 1 of the sandbox's PID namespace, with the standard library only
(`python -I -S executor_main.py FD UID`).

Request (a datagram on the socket FD, with the step's stdin, stdout and stderr attached):
{"argv": [...], "cwd": ..., "env": {...}, "rlimits": [[name, soft, hard], ...], "timeout": seconds}.
Answer: {"returncode": ..., "timed_out": ..., "seconds": ...} or {"error": ...}.
"""
import ctypes
import json
import os
import resource
import select
import signal
import socket
import sys
import time

PR_SET_NO_NEW_PRIVS = 38


def child(req, fds, uid):
    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        os.chdir(req["cwd"])
        for name, soft, hard in req["rlimits"]:
            resource.setrlimit(getattr(resource, name), (soft, hard))
        if uid >= 0:        # a root sandbox: the step runs as its own uid, without capabilities
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        os.execve(req["argv"][0], req["argv"], req["env"])
    except BaseException as e:  # noqa: BLE001 - whatever failed, the step reports it and ends
        os.write(2, f"kernelwright executor: cannot start {req['argv'][0]}: {e}\n".encode())
    os._exit(127)


def clear():
    """Kill and reap every other process in the namespace (the step's leftovers, however they hid)."""
    for _ in range(1000):
        try:
            os.kill(-1, signal.SIGKILL)        # from PID 1: everyone else in this namespace
        except ProcessLookupError:
            return
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                break
        time.sleep(0.001)


def serve(sock, uid):
    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 3)
        if not msg:
            return
        req = json.loads(msg)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            sock.close()
            child(req, fds, uid)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        timed_out = not select.select([pidfd], [], [], req["timeout"])[0]
        os.close(pidfd)
        if timed_out:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        seconds = time.monotonic() - start
        clear()
        sock.send(json.dumps({"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out,
                              "seconds": seconds}).encode())


def main():
    if os.getpid() != 1:   # kill(-1) is only safe as the init of a sandbox's own PID namespace
        sys.exit("kernelwright executor: refusing to run outside a PID namespace")
    serve(socket.socket(fileno=int(sys.argv[1])), int(sys.argv[2]))


if __name__ == "__main__":
    main()

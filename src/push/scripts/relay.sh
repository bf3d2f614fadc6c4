# shellcheck shell=sh
# shellcheck disable=SC2016 # the Python program is single-quoted on purpose: the shell must not touch it
# relay.sh: one node's part in `push --relay` (push/relay.hpp): the file streams through a chain of
# nodes, each writing it to its temporary name and forwarding every chunk to the next node as it
# arrives, so N nodes take about the time of one transfer. The hops between nodes are plain TCP on the
# cluster network; every node then checks the sha256 itself (verify.sh) before the file is placed.
#   relay.sh listen BIND PORT TEMP SIZE [NEXT_HOST NEXT_PORT]
#       in the background: accept one connection on BIND:PORT, write SIZE bytes to TEMP, forward them;
#       returns once the port is bound (exit 1, and why, if it cannot be)
#   relay.sh follow TEMP SIZE NEXT_HOST NEXT_PORT
#       in the background: send TEMP to the next node as it grows (the first node, which pdctl uploads
#       to); its record is gone once it started: the next node's own record says what arrived
#   relay.sh wait TEMP SECONDS
#       waits for the background part to end: "ok BYTES" (exit 0) or the error (exit 1)
# Its record is TEMP.relay (ready, then ok/error); a part that gets no data for 60 s gives up.
relay_py='
import errno, fcntl, os, socket, struct, sys, time
mode, args = sys.argv[1], sys.argv[2:]
IDLE = 60.0
CHUNK = 1 << 20
# Each hop moves the data inside the kernel (splice into the file, sendfile from its page cache to the
# next node): a copy through Python objects costs several times the CPU per byte, and on a node that
# also runs ranks that CPU is not free.
def record(temp, text):
    with open(temp + ".relay.new", "w") as f:
        f.write(text + "\n")
    os.replace(temp + ".relay.new", temp + ".relay")
def blocking_with_idle_limit(sock):
    # Blocking, so splice and sendfile wait for data; SO_RCVTIMEO/SO_SNDTIMEO end a wait that lasts IDLE.
    sock.setblocking(True)
    limit = struct.pack("ll", int(IDLE), 0)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
    return sock
def connect(host, port):
    deadline = time.monotonic() + IDLE
    while True:
        try:
            return blocking_with_idle_limit(socket.create_connection((host, int(port)), timeout=IDLE))
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
def send_range(forward, fd, offset, count):
    while count > 0:
        try:
            n = os.sendfile(forward.fileno(), fd, offset, count)
        except OSError as error:
            if error.errno == errno.EAGAIN:
                raise RuntimeError("the next node took nothing for %ds" % IDLE)
            raise
        if n == 0:
            raise RuntimeError("the file ended early at %d bytes" % offset)
        offset, count = offset + n, count - n
def receive_spliced(peer, fd, size, forward):
    # socket -> pipe -> file; the pipe is the kernel buffer splice needs between two non-pipes.
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, 1031, CHUNK)  # F_SETPIPE_SZ: a larger pipe, fewer calls
    except OSError:
        pass  # above the node limit (pipe-max-size): the default pipe works, in more calls
    got = 0
    while got < size:
        try:
            n = os.splice(peer.fileno(), w, min(CHUNK, size - got))
        except OSError as error:
            if error.errno == errno.EAGAIN:
                raise RuntimeError("no data for %ds after %d of %d bytes" % (IDLE, got, size))
            raise
        if n == 0:
            break
        left = n
        while left > 0:
            left -= os.splice(r, fd, left)
        if forward:
            send_range(forward, fd, got, n)
        got += n
    return got
def splice_works(fd):
    # One byte through a pipe into the file, then gone again: asked before any data is taken off the
    # socket, so a refusal loses nothing.
    r, w = os.pipe()
    try:
        os.write(w, b"\0")
        os.splice(r, fd, 1)
        return True
    except OSError:
        return False
    finally:
        os.close(r)
        os.close(w)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
def receive_copied(peer, out, size, forward):
    # For a file system that refuses splice: one buffer, reused.
    buf = memoryview(bytearray(CHUNK))
    got = 0
    while got < size:
        n = peer.recv_into(buf, min(CHUNK, size - got))
        if not n:
            break
        left = buf[:n]
        while left:
            left = left[out.write(left):]  # an unbuffered write may take part of it
        if forward:
            forward.sendall(buf[:n])
        got += n
    return got
if mode == "listen":
    bind, port, temp, size = args[0], int(args[1]), args[2], int(args[3])
    nxt = args[4:6]
    server = socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind((bind, port))
        server.listen(1)
    except OSError as error:
        record(temp, "error cannot listen on %s:%d: %s" % (bind, port, error))
        sys.exit(1)
    record(temp, "ready")
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    try:
        server.settimeout(IDLE)
        peer, _ = server.accept()
        blocking_with_idle_limit(peer)
        out = open(temp, "w+b", buffering=0)  # read too: sendfile forwards from it
        os.chmod(temp, 0o600)
        forward = connect(*nxt) if nxt else None
        if splice_works(out.fileno()):
            got = receive_spliced(peer, out.fileno(), size, forward)
        else:
            got = receive_copied(peer, out, size, forward)
        out.close()
        if forward:
            forward.shutdown(socket.SHUT_WR)
        record(temp, "ok %d" % got if got == size else "error received %d of %d bytes" % (got, size))
    except Exception as error:
        record(temp, "error %s" % error)
elif mode == "follow":
    temp, size, host, port = args[0], int(args[1]), args[2], args[3]
    record(temp, "ready")
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    try:
        forward = connect(host, port)
        sent, idle_since, fd = 0, time.monotonic(), None
        while sent < size:
            if fd is None:
                try:
                    fd = os.open(temp, os.O_RDONLY)
                except FileNotFoundError:
                    pass
            ready = min(os.fstat(fd).st_size, size) - sent if fd is not None else 0
            if ready > 0:
                send_range(forward, fd, sent, ready)
                sent += ready
                idle_since = time.monotonic()
            elif time.monotonic() - idle_since > IDLE:
                raise RuntimeError("no data for %ds after %d of %d bytes" % (IDLE, sent, size))
            else:
                time.sleep(0.005)
        forward.shutdown(socket.SHUT_WR)
    except Exception:
        pass  # the next node says what it did not receive
'
mode=$1; shift
case $mode in
  listen|follow)
    command -v python3 >/dev/null 2>&1 || { echo "push --relay needs python3 on the node" >&2; exit 1; }
    if [ "$mode" = listen ]; then temp=$3; else temp=$1; fi
    rm -f "$temp.relay"
    python3 -c "$relay_py" "$mode" "$@" > /dev/null 2>&1 < /dev/null
    state=$(cat "$temp.relay" 2>/dev/null)
    # A listener whose whole file arrived before this look (a small one) has already said ok.
    case $state in
      ready|ok*) ;;
      *) echo "${state:-the relay did not start}" >&2; exit 1 ;;
    esac
    # The follower's record has served: what arrived is the next node's to say.
    if [ "$mode" = follow ]; then rm -f "$temp.relay"; fi
    ;;
  wait)
    temp=$1 seconds=$2 waited=0
    while :; do
      state=$(cat "$temp.relay" 2>/dev/null)
      case $state in
        ok*) rm -f "$temp.relay"; echo "$state"; exit 0 ;;
        error*) rm -f "$temp.relay" "$temp"; echo "$state" >&2; exit 1 ;;
      esac
      [ "$waited" -lt "$((seconds * 20))" ] || { echo "no end after ${seconds}s" >&2; exit 1; }
      sleep 0.05
      waited=$((waited + 1))
    done
    ;;
  *) echo "relay.sh: unknown mode $mode" >&2; exit 2 ;;
esac

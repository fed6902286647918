import CheckoutLocking
import Foundation
import Spawning
import Testing

/// Many clients at once against a running server, as an outside attacker would make them:
/// Python's asyncio and its `ssl` module (OpenSSL), a client that shares no code with the
/// server or its tests. Each scenario prints one JSON object of what it measured.
///
/// Scenarios (`--scenario`):
/// - `slow-heads`: `--attackers` connections from `--addresses` loopback addresses
///   (127.0.1.1, ...), each sending `GET /health HTTP/1.1` and then one byte every 2 seconds,
///   reconnecting when the server closes them, for `--seconds`; meanwhile a victim on 127.0.0.1
///   opens a fresh connection every 250 ms and asks `GET /v1/whoami` with `--key`.
/// - `bodies`: `--attackers` concurrent requests `--method --path` declaring and sending
///   a 1 MiB body, from `--addresses` addresses; reports the statuses answered.
/// - `trickle-head`: one connection sending a header line every second; reports when the
///   server closed it and what it answered.
enum ClientFlood {
    static let script = #"""
import asyncio, json, math, multiprocessing, os, resource, ssl, sys, time, argparse

p = argparse.ArgumentParser()
p.add_argument("--scenario"); p.add_argument("--port", type=int); p.add_argument("--tls", type=int, default=1)
p.add_argument("--attackers", type=int, default=0); p.add_argument("--addresses", type=int, default=1)
p.add_argument("--seconds", type=float, default=10); p.add_argument("--key", default="")
p.add_argument("--method", default="GET"); p.add_argument("--path", default="/health")
a = p.parse_args()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

def make_context():
    if not a.tls: return None
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); c.check_hostname = False; c.verify_mode = ssl.CERT_NONE
    return c
CONTEXT = make_context()

async def connect(source):
    return await asyncio.wait_for(asyncio.open_connection("127.0.0.1", a.port, ssl=CONTEXT,
        local_addr=(source, 0), server_hostname="localhost" if a.tls else None), 15)

async def slow_heads():
    stats = {"connects": 0, "failedConnects": 0, "open": 0, "peakOpen": 0, "closedByServer": 0}
    stop = time.monotonic() + a.seconds
    async def attacker(i):
        source = "127.0.1.%d" % (i % a.addresses + 1)
        while time.monotonic() < stop:
            try:
                r, w = await connect(source)
            except Exception:
                stats["failedConnects"] += 1; await asyncio.sleep(1); continue
            stats["connects"] += 1; stats["open"] += 1; stats["peakOpen"] = max(stats["peakOpen"], stats["open"])
            try:
                w.write(b"GET /health HTTP/1.1\r\n"); await w.drain()
                while time.monotonic() < stop:
                    try:
                        data = await asyncio.wait_for(r.read(4096), 2)
                        if not data:
                            stats["closedByServer"] += 1; break
                    except asyncio.TimeoutError:
                        w.write(b"X"); await w.drain()
            except Exception:
                stats["closedByServer"] += 1
            finally:
                stats["open"] -= 1; w.close()
            # Back at once, but not in a tight loop: the attack holds slots, it is not a handshake flood.
            await asyncio.sleep(0.2)
    victim_results = multiprocessing.Queue()
    victim_process = multiprocessing.Process(target=victim, args=(stop, victim_results))
    victim_process.start()
    # The attackers yield the CPU to the server and the victim: on a 2-core test machine they
    # stand in for clients on machines of their own.
    os.nice(10)
    await asyncio.gather(*[attacker(i) for i in range(a.attackers)])
    latencies, failures = victim_results.get(timeout=30)
    victim_process.join()
    latencies.sort()
    stats.update({"victimAnswers": len(latencies), "victimFailures": failures,
                  "victimP99": latencies[max(0, math.ceil(len(latencies) * 0.99) - 1)] if latencies else None,
                  "victimMax": latencies[-1] if latencies else None})
    return stats

def victim(stop, results):
    """In its own process: the attackers' event loop never delays the victim's measurements."""
    latencies, failures = [], []
    async def run():
        await asyncio.sleep(min(4, a.seconds / 3))
        while time.monotonic() < stop - 1:
            started = time.monotonic()
            try:
                r, w = await connect("127.0.0.1")
                w.write(("GET /v1/whoami HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n" % a.key).encode())
                await w.drain()
                answer = await asyncio.wait_for(r.read(), 10)
                w.close()
                if answer.startswith(b"HTTP/1.1 200"): latencies.append(time.monotonic() - started)
                else: failures.append(answer[:60].decode("latin-1"))
            except Exception as e:
                failures.append(type(e).__name__)
            await asyncio.sleep(0.25)
    asyncio.run(run())
    results.put((latencies, failures))

async def bodies():
    statuses = {}
    body = b"1" * (1 << 20)
    async def one(i):
        source = "127.0.1.%d" % (i % a.addresses + 1)
        status = "none"
        try:
            r, w = await connect(source)
            head = "%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (a.method, a.path, len(body))
            if a.key: head += "Authorization: Bearer %s\r\n" % a.key
            w.write(head.encode() + b"\r\n"); await w.drain()
            # The answer to the head alone: a server that waits for the body gives none in time.
            try:
                answer = await asyncio.wait_for(r.readuntil(b"\r\n"), 10)
            except asyncio.IncompleteReadError as e:
                answer = e.partial
                why = "none: closed before answering the head"
            except asyncio.TimeoutError:
                answer = b""
                why = "none: no answer to the head in 10 s"
            if not answer:
                try:
                    for start in range(0, len(body), 65536):
                        w.write(body[start:start + 65536]); await w.drain()
                    answer = await asyncio.wait_for(r.read(), 15)
                except Exception as e:
                    why += ", then %s sending the body" % type(e).__name__
            status = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else why
            w.close()
        except Exception as e:
            status = type(e).__name__
        statuses[status] = statuses.get(status, 0) + 1
    await asyncio.gather(*[one(i) for i in range(a.attackers)])
    return {"statuses": statuses}

async def trickle_head():
    started = time.monotonic()
    r, w = await connect("127.0.0.1")
    w.write(b"GET /health HTTP/1.1\r\nHost: localhost\r\n"); await w.drain()
    answer, lines = b"", 0
    while time.monotonic() - started < a.seconds:
        try:
            data = await asyncio.wait_for(r.read(4096), 1)
            if not data: break
            answer += data
        except asyncio.TimeoutError:
            try:
                w.write(b"X-Slow-%d: 1\r\n" % lines); await w.drain(); lines += 1
            except Exception:
                break
        except Exception:
            break
    return {"closedAfter": time.monotonic() - started, "headerLinesSent": lines, "answer": answer.decode("latin-1")}

result = asyncio.run({"slow-heads": slow_heads, "bodies": bodies, "trickle-head": trickle_head}[a.scenario]())
print(json.dumps(result))
"""#

    /// Runs `scenario` with `arguments` (flag, value pairs); the JSON object it printed.
    static func run(_ scenario: String, port: Int, tls: Bool, _ arguments: [String: String] = [:]) async throws -> [String: Any] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("client-flood-\(UUID().uuidString).py")
        try Data(script.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var argv = [file.path, "--scenario", scenario, "--port", String(port), "--tls", tls ? "1" : "0"]
        for (flag, value) in arguments.sorted(by: { $0.key < $1.key }) { argv += ["--\(flag)", value] }
        let child = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3"] + argv, standardOutput: .pipe,
                                     standardError: .pipe)
        let output = try #require(child.standardOutput)
        let errors = try #require(child.standardError)
        let (text, stderr) = await onOwnThread {
            (String(decoding: output.readDataToEndOfFile(), as: UTF8.self), String(decoding: errors.readDataToEndOfFile(), as: UTF8.self))
        }
        let status = await child.waitForExit().status
        #expect(status == 0, "python3 flood \(scenario) exited \(status): \(stderr.suffix(2000))")
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any], "no JSON: \(text) \(stderr)")
    }
}

"""The MCP server ends with its client: when the client closes the pipes during a long tool call,
the server process exits at once (status 0, nothing on stderr) instead of running the work on."""
import json
import subprocess
import sys
import time

SERVER = '''
import time
from kernelwright.agent.plugins import ops, mcp_server

class Slow:
    def search(self, query, k=5, kinds=None, soc=None):
        start = time.monotonic()
        while time.monotonic() - start < 120:
            sum(range(10000))
        return []

ops._RETRIEVER = Slow()
mcp_server.serve(runs={runs!r})
'''


def test_server_exits_when_the_client_goes_away_mid_call(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", SERVER.format(runs=str(tmp_path))], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(msg: dict) -> None:
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
        assert b'"id":1' in proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "search_docs", "arguments": {"query": "DataCopy"}}})
        time.sleep(1.0)
        proc.stdin.close()
        proc.stdout.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stderr.read() == b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

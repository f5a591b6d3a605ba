"""One HTTP client for the tests' calls to servers on this machine.

``httpx.get()`` makes a client for each call, and each client loads the system's CA
certificates for TLS (tens of milliseconds of CPU) that a plain ``http://127.0.0.1`` call
never uses; a polling loop or a fuzzer pays that hundreds of times. This client is made
once. It keeps no connection open between calls (a test may kill a server and start
another on the same port) and ignores proxies named in the environment."""

from __future__ import annotations

import httpx

HTTP = httpx.Client(timeout=10, trust_env=False, limits=httpx.Limits(max_keepalive_connections=0))

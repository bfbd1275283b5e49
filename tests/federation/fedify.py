"""Fedify, an independent ActivityPub implementation (TypeScript), as a
second opinion on what our federation endpoints serve.

Why not the `@fedify/cli` package: its npm package is a stub whose
postinstall downloads a prebuilt binary from GitHub (fails offline), and
its `fedify lookup` has no option to reach a private address. So this
runs the library itself, `@fedify/fedify` 1.5.9 (the newest release whose
`engines` accepts Node 20), from a short Node script built the way
`fedify lookup` is (its `lookupObject` with a document loader), with two
options the CLI lacks:

- `--allow-private-address`: Fedify refuses loopback and private
  addresses by default (an SSRF guard, "Invalid or private address");
  `getDocumentLoader({allowPrivateAddress: true})` and
  `lookupWebFinger(..., {allowPrivateAddress: true})` lift it.
- `--plain-http`: for an `acct:` resource Fedify always builds
  `https://<host:port>/.well-known/webfinger?resource=acct%3A...`
  (RFC 7033 section 4 requires HTTPS), whatever the actor URLs say; this
  rewrites `https:` to `http:` for loopback hosts only (127/8, localhost,
  [::1]) in the script's `fetch`, so a plain-HTTP test server answers.

Install (scripts/setup.sh): `npm install --prefix .fedify --no-audit
--no-fund @fedify/fedify@1.5.9` (49 packages, ~5 s, 46 MB, nothing
downloaded in postinstall). FEDIFY_PREFIX overrides where it is looked for.

Usage, against a server on 127.0.0.1:PORT:
    fedify_lookup([*LOOPBACK, "acct:alice@127.0.0.1:PORT"])        # WebFinger, then actor
    fedify_lookup([*LOOPBACK, "--webfinger", "acct:alice@127.0.0.1:PORT"])  # the JRD only
    fedify_lookup([*LOOPBACK, "http://127.0.0.1:PORT/u/alice/"])  # an actor URL
    fedify_lookup([*LOOPBACK, "http://127.0.0.1:PORT/posts/<id>/"])  # a post URL
stdout has one JSON line per argument, in order: `{"query", "type", "id",
"object"}` (`object`: compact JSON-LD as Fedify re-serialises it), or
`{"query", "jrd"}` with --webfinger, or `{"query", "error"}`; exit status 1
if any failed (each takes ~1 s, mostly Node's start; all four forms
were checked against `manage.py demo` with this repo's federation app).
`parsed(result)` reads them. `--debug` logs each request
to stderr; warnings and errors (a refused address, a bad key) always are.

What Fedify checks while parsing: JSON-LD expansion against its preloaded
contexts (activitystreams, security/v1, data-integrity, did, multikey,
webfinger, schema.org; any other remote context is fetched, and this
machine has no internet), and an actor's `publicKeyPem` must be a real
SPKI PEM: a malformed one throws (AsnError), it is not ignored.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERSION = "1.5.9"
PREFIX = Path(os.environ.get("FEDIFY_PREFIX") or ROOT / ".fedify")
INSTALL = [
    "npm",
    "install",
    "--prefix",
    str(PREFIX),
    "--no-audit",
    "--no-fund",
    f"@fedify/fedify@{VERSION}",
]
# What a test on 127.0.0.1 over plain HTTP passes first.
LOOPBACK = ["--allow-private-address", "--plain-http"]

# Run with `node --input-type=module -e SCRIPT -- ARGS` from PREFIX, so that
# the bare import resolves in PREFIX/node_modules.
SCRIPT = r"""
import { getDocumentLoader, lookupObject, lookupWebFinger } from "@fedify/fedify";
import { configure } from "@logtape/logtape";

const flags = new Set(), queries = [];
for (const arg of process.argv.slice(1)) {
  if (arg.startsWith("--")) flags.add(arg);
  else queries.push(arg);
}
const known = ["--allow-private-address", "--plain-http", "--webfinger", "--debug"];
const unknown = [...flags].filter((f) => !known.includes(f));
if (unknown.length || !queries.length) {
  process.stderr.write(`usage: [${known.join("] [")}] <acct:|handle|url>...\n`);
  process.exit(2);
}
// Never stdout (console.debug/info go there): it carries the JSON lines.
await configure({
  sinks: { stderr: (r) => process.stderr.write(
    `${r.level} ${r.category.join(".")} ${r.message.map((m) =>
      typeof m === "string" ? m : JSON.stringify(String(m))).join("")}\n`) },
  loggers: [
    { category: "fedify", sinks: ["stderr"],
      lowestLevel: flags.has("--debug") ? "debug" : "warning" },
    { category: ["logtape", "meta"], sinks: [], lowestLevel: "error" },
  ],
});
if (flags.has("--plain-http")) {
  const realFetch = globalThis.fetch;
  const loopback = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol === "https:" && loopback.test(url.hostname)) {
      url.protocol = "http:";
      input = input instanceof Request ? new Request(url, input) : url;
    }
    return realFetch(input, init);
  };
}
const allowPrivateAddress = flags.has("--allow-private-address");
const documentLoader = getDocumentLoader({ allowPrivateAddress });
let failed = false;
for (const query of queries) {
  let line;
  try {
    if (flags.has("--webfinger")) {
      const jrd = await lookupWebFinger(query, { allowPrivateAddress });
      line = jrd ? { query, jrd } : { query, error: "no WebFinger answer" };
    } else {
      const object = await lookupObject(query, {
        documentLoader, contextLoader: documentLoader, allowPrivateAddress });
      line = object
        ? { query, type: object.constructor.name, id: object.id?.href ?? null,
            object: await object.toJsonLd({ format: "compact", contextLoader: documentLoader }) }
        : { query, error: "not found (or refused: see stderr)" };
    }
  } catch (error) {
    line = { query, error: `${error?.name}: ${error?.message}` };
  }
  failed ||= "error" in line;
  process.stdout.write(JSON.stringify(line) + "\n");
}
process.exit(failed ? 1 : 0);
"""


def installed() -> bool:
    """Node and the library are there (a test skips or fails on this)."""
    return (
        shutil.which("node") is not None
        and (PREFIX / "node_modules" / "@fedify" / "fedify" / "package.json").is_file()
    )


def fedify_lookup(args: list[str], *, timeout: float = 60) -> subprocess.CompletedProcess:
    """Fedify's lookup of each handle, `acct:` URI or URL in `args` (flags
    first, see the module docstring); text stdout/stderr, not checked."""
    if not installed():
        raise FileNotFoundError(f"@fedify/fedify is not installed: {' '.join(INSTALL)}")
    return subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT, "--", *args],
        cwd=PREFIX,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def parsed(result: subprocess.CompletedProcess) -> list[dict]:
    """The JSON lines of a `fedify_lookup`, one per query."""
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]

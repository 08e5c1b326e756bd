/**
 * The TypeScript client over TLS against a real host started with a
 * certificate: a throwaway CA and the server's and admin's certificates are
 * made here with the `openssl` command, never kept.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { Code, TabletopError, connect } from "../src/index.js";
import { ADMIN_TOKEN, startHost, type Host } from "./harness.js";

let dir: string;
let host: Host;

function openssl(...args: string[]): void {
  execFileSync("openssl", args, { stdio: "pipe" });
}

/** A key and a certificate signed by the test CA, for `usage`. */
function issue(name: string, subject: string, usage: string, san = ""): [string, string] {
  const [key, csr, cert, ext] = ["key", "csr", "pem", "ext"].map((kind) => join(dir, `${name}.${kind}`)) as [
    string,
    string,
    string,
    string,
  ];
  openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", csr, "-subj", subject);
  writeFileSync(ext, `extendedKeyUsage=${usage}\n` + (san ? `subjectAltName=${san}\n` : ""));
  openssl("x509", "-req", "-in", csr, "-CA", join(dir, "ca.pem"), "-CAkey", join(dir, "ca.key"), "-CAcreateserial", "-days", "1", "-out", cert, "-extfile", ext);
  return [cert, key];
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "tabletop-tls-"));
  openssl(
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", join(dir, "ca.key"), "-out", join(dir, "ca.pem"), "-days", "1", "-subj", "/CN=tabletop test CA",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  );
  const [serverCert, serverKey] = issue("server", "/CN=localhost", "serverAuth", "DNS:localhost,IP:127.0.0.1");
  issue("admin", "/CN=tabletop admin", "clientAuth");
  host = await startHost(["--tls-cert", serverCert, "--tls-key", serverKey, "--tls-client-ca", join(dir, "ca.pem")]);
});

after(async () => {
  await host?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a match is played over TLS with the CA file", async () => {
  const client = connect(host.address, { caFile: join(dir, "ca.pem") });
  try {
    const games = await client.games();
    assert.ok(games.some((g) => g.name === "focus"));
    const match = await client.createMatch("focus", { players: 2 });
    assert.ok(match.matchId.length > 0);
  } finally {
    client.close();
  }
});

test("admin calls need the client certificate", async () => {
  const without = connect(host.address, { caFile: join(dir, "ca.pem"), credential: ADMIN_TOKEN });
  try {
    await assert.rejects(without.listPlugins(), (e: unknown) => {
      assert.ok(e instanceof TabletopError);
      assert.equal(e.code, Code.Unauthenticated);
      assert.equal(e.reason, "CLIENT_CERTIFICATE_REQUIRED");
      return true;
    });
  } finally {
    without.close();
  }
  const admin = connect(host.address, {
    caFile: join(dir, "ca.pem"),
    clientCertFile: join(dir, "admin.pem"),
    clientKeyFile: join(dir, "admin.key"),
    credential: ADMIN_TOKEN,
  });
  try {
    assert.ok((await admin.listPlugins()).some((p) => p.game === "focus"));
  } finally {
    admin.close();
  }
});
